"""Ctrl-C stops a run cleanly with KeyboardInterrupt, and the next run is unaffected."""

import os
import signal
import threading
import time

import pytest

import evogpu
from conftest import RASTRIGIN_BOX, rastrigin


def test_a_callback_raising_keyboard_interrupt_stops_the_run():
    def callback(progress):
        if progress.generation == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evogpu.minimize("rastrigin:5", backend="cpu", max_generations=1000, callback=callback)
    assert evogpu.minimize("rastrigin:5", backend="cpu", max_generations=10).nit == 10


def test_sigint_during_a_callback_run_raises_keyboard_interrupt():
    calls = []

    def callback(progress):
        calls.append(progress.generation)
        if progress.generation == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        evogpu.minimize("rastrigin:5", backend="cpu", max_generations=100_000, callback=callback)
    assert calls[-1] <= 3


def test_sigint_stops_a_run_without_callback():
    # The run would take minutes; SIGINT from another thread must end it within a batch of generations.
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            evogpu.minimize("rastrigin:50", backend="cpu:1", max_generations=10**9)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 60
    assert evogpu.minimize("rastrigin:5", backend="cpu", max_generations=10).nit == 10


def test_sigint_during_a_python_fitness_raises_keyboard_interrupt():
    def fitness(population):
        os.kill(os.getpid(), signal.SIGINT)
        return rastrigin(population)

    with pytest.raises(KeyboardInterrupt):
        evogpu.minimize(fitness, RASTRIGIN_BOX, max_generations=10**9)
