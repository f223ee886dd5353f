"""Every stop belongs to one run: a StopToken, a callback returning True or raising, end the run they were
given to, and a run in another Python thread goes on to its own end with its own result."""

import os
import signal
import threading

import pytest

import evogpu

BUDGET = 120


def solo():
    """The other thread's run, alone."""
    return evogpu.minimize("rastrigin:8", backend="cpu:1", seed=5, max_generations=BUDGET)


def run_beside(stop_first):
    """Runs a long run in this thread and, in a second thread, a run of BUDGET generations that waits at
    its generation 2 until the long one has ended; `stop_first(token)` gives the long run's minimize
    arguments. Returns both results (or the long run's exception)."""
    first_done = threading.Event()
    results = {}

    def wait_for_first(progress):
        if progress.generation == 2:
            assert first_done.wait(60)

    def second():
        results["second"] = evogpu.minimize("rastrigin:8", backend="cpu:1", seed=5, max_generations=BUDGET,
                                             callback=wait_for_first)

    worker = threading.Thread(target=second)
    worker.start()
    try:
        results["first"] = evogpu.minimize("rastrigin:8", backend="cpu:1", seed=1, max_generations=10**9,
                                           **stop_first())
    except BaseException as error:  # noqa: BLE001 - the caller checks which exception it was
        results["first"] = error
    finally:
        first_done.set()
        worker.join()
    return results["first"], results["second"]


def assert_untouched(second):
    alone = solo()
    assert second.nit == BUDGET
    assert second.message == "generation limit reached"
    assert second.fun == alone.fun


def test_a_stop_token_stops_its_run_and_not_the_one_in_another_thread():
    token = evogpu.StopToken()

    def stop_at_generation_3(progress):
        if progress.generation == 3:
            token.stop()

    first, second = run_beside(lambda: {"stop_token": token, "callback": stop_at_generation_3})
    assert token.stopped
    assert first.message == "interrupted"
    assert first.nit == 3
    assert_untouched(second)


def test_a_token_stopped_from_another_thread_ends_the_run():
    token = evogpu.StopToken()
    timer = threading.Timer(0.3, token.stop)
    timer.start()
    try:
        result = evogpu.minimize("rastrigin:8", backend="cpu:1", max_generations=10**9, stop_token=token)
    finally:
        timer.cancel()
    assert result.message == "interrupted"
    assert 0 < result.nit < 10**9


def test_a_stopped_token_stops_a_later_run_before_its_first_generation():
    token = evogpu.StopToken()
    token.stop()
    assert repr(token) == "StopToken(stopped=True)"
    result = evogpu.minimize("rastrigin:8", backend="cpu", max_generations=50, stop_token=token)
    assert result.nit == 0
    assert result.message == "interrupted"


def test_a_callback_returning_true_stops_only_its_run():
    first, second = run_beside(lambda: {"callback": lambda progress: progress.generation >= 4})
    assert first.message == "stopped by the callback"
    assert first.nit == 4
    assert_untouched(second)


def test_a_callback_raising_stops_only_its_run():
    def boom(progress):
        if progress.generation == 2:
            raise KeyboardInterrupt

    first, second = run_beside(lambda: {"callback": boom})
    assert isinstance(first, KeyboardInterrupt)
    assert_untouched(second)


def test_stop_token_is_typed():
    with pytest.raises(TypeError):
        evogpu.minimize("rastrigin:8", backend="cpu", max_generations=5, stop_token="stop")


def test_ctrl_c_stops_the_main_threads_run_only():
    # Python delivers SIGINT to the main thread: its run raises KeyboardInterrupt, the other thread's run
    # (waiting at its generation 2 meanwhile) is not interrupted.
    def interrupt(progress):
        if progress.generation == 2:
            os.kill(os.getpid(), signal.SIGINT)

    first, second = run_beside(lambda: {"callback": interrupt})
    assert isinstance(first, KeyboardInterrupt)
    assert_untouched(second)
