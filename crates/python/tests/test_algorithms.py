"""Every algorithm on a built-in problem, the result's shape, and the problem names."""

import numpy as np
import pytest

import evogpu


def check_result(result, nit):
    assert result.nit == nit
    assert result.nfev > 0
    assert np.isfinite(result.fun)
    history = result.history
    assert set(history) == {"generation", "evaluations", "best_fitness", "elapsed_s"}
    assert history["generation"][0] == 0 and history["generation"][-1] == nit
    assert history["best_fitness"][-1] == result.fun
    best = history["best_fitness"]
    assert np.all(best[1:] <= best[:-1])  # +inf until a constrained problem's first feasible point
    assert result.backend == "cpu"
    assert result.success


def test_de_on_rastrigin():
    result = evogpu.minimize("rastrigin:10", algorithm="de", backend="cpu", seed=3, max_generations=30)
    check_result(result, 30)
    assert result.x.shape == (10,) and result.x.dtype == np.float64
    assert result.message == "generation limit reached"


def test_de_on_cec2010_with_the_dimension_from_bounds():
    box = [(-100.0, 100.0)] * 100
    result = evogpu.minimize("cec2010:f1", box, backend="cpu", seed=1, max_generations=3)
    check_result(result, 3)
    assert result.x.shape == (100,)
    assert result.metadata["problem"].startswith("cec2010")


def test_de_on_an_etc_file(etc_file):
    result = evogpu.minimize(f"etc:{etc_file}", backend="cpu", seed=2, max_generations=5)
    check_result(result, 5)


def test_ma_sw_chains_on_shifted_rastrigin():
    result = evogpu.minimize(
        "shifted-rastrigin:20", algorithm="ma-sw-chains", backend="cpu", seed=4, max_evaluations=3000
    )
    assert result.nfev == 3000
    assert result.message == "evaluation limit reached"
    assert result.x.shape == (20,)
    assert result.history["best_fitness"][-1] == result.fun


def test_ga_on_a_paper_function_returns_bits():
    result = evogpu.minimize("ga:f1:4", algorithm="ga", backend="cpu", seed=5, max_generations=10)
    check_result(result, 10)
    assert result.x.dtype == np.bool_ and result.x.shape == (64,)


def test_ga_runs_its_own_generation_count_without_a_budget(knapsack_file):
    result = evogpu.minimize(
        f"knapsack:{knapsack_file}", algorithm="ga", seed=6, options={"population": 32}
    )
    assert result.x.shape == (8,)
    assert result.nit > 0


@pytest.mark.parametrize("algorithm", ["qiga", "sga"])
def test_qiga_and_sga_on_a_knapsack_file(knapsack_file, algorithm):
    result = evogpu.minimize(
        f"knapsack:{knapsack_file}", algorithm=algorithm, backend="cpu", seed=8, max_generations=12,
        options={"population": 16},
    )
    check_result(result, 12)
    assert result.x.dtype == np.bool_ and result.x.shape == (8,)
    weights = np.array([12, 7, 11, 8, 9, 6, 5, 14])
    assert weights[result.x].sum() <= 30


def test_qiga_runs_its_own_generation_count_without_a_budget(knapsack_file):
    result = evogpu.minimize(
        f"knapsack:{knapsack_file}", algorithm="qiga", seed=8, options={"population": 8, "generations": 7}
    )
    assert result.nit == 7


def test_dpga_on_cec2006_g01():
    result = evogpu.minimize(
        "cec2006:g01", algorithm="dpga", backend="cpu", seed=7, max_generations=3,
        options={"main_size": 40, "reserve_size": 40},
    )
    check_result(result, 3)
    assert result.x.shape == (13,)


def test_history_every_thins_the_history():
    result = evogpu.minimize("rastrigin:5", backend="cpu", max_generations=20, history_every=5)
    assert list(result.history["generation"]) == [0, 5, 10, 15, 20]


def test_the_default_history_keeps_about_a_hundred_points():
    result = evogpu.minimize("rastrigin:3", backend="cpu", max_generations=250)
    assert list(result.history["generation"][:3]) == [0, 2, 4]
    assert result.history["generation"][-1] == 250
    short = evogpu.minimize("rastrigin:3", backend="cpu", max_generations=30)
    assert list(short.history["generation"]) == list(range(31))
    by_evaluations = evogpu.minimize("rastrigin:3", backend="cpu", max_evaluations=64 * 251)
    assert list(by_evaluations.history["generation"]) == [0, 100, 200, 250]


def test_options_change_the_run():
    small = evogpu.minimize("rastrigin:5", backend="cpu", max_generations=2, options={"population": 16})
    assert small.nfev == 16 * 3


def test_a_callback_sees_every_generation_and_can_stop_the_run():
    seen = []

    def callback(progress):
        seen.append(progress)
        return progress.generation == 4

    result = evogpu.minimize("rastrigin:5", backend="cpu", max_generations=50, callback=callback)
    assert [p.generation for p in seen] == [1, 2, 3, 4]
    assert result.nit == 4
    assert result.message == "stopped by the callback"
    assert seen[-1].best_fitness == result.fun


def test_a_stop_on_the_last_generation_does_not_stop_the_next_run():
    # The stop asked on the run's last generation is not left pending for the next run.
    evogpu.minimize("rastrigin:5", backend="cpu", max_generations=3, callback=lambda p: p.generation == 3)
    after = evogpu.minimize("rastrigin:5", backend="cpu", max_generations=10)
    assert after.nit == 10
    assert after.message == "generation limit reached"


def test_a_checkpointed_run_resumes_to_the_uninterrupted_result(tmp_path):
    path = tmp_path / "de.ckpt"
    whole = evogpu.minimize("rastrigin:8", backend="cpu", seed=9, max_generations=40)
    first = evogpu.minimize("rastrigin:8", backend="cpu", seed=9, max_generations=20, checkpoint=path,
                            checkpoint_every=10)
    assert first.nit == 20 and path.exists()
    resumed = evogpu.minimize("rastrigin:8", backend="cpu", seed=9, max_generations=40, checkpoint=path)
    assert resumed.nit == 40
    assert resumed.fun == whole.fun
    np.testing.assert_array_equal(resumed.x, whole.x)
