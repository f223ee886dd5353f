"""Bad parameters raise ValueError with the crates' messages; device failures raise RuntimeError."""

import numpy as np
import pytest

import evogpu
from conftest import RASTRIGIN_BOX, rastrigin


def test_an_out_of_range_option_has_the_crate_message():
    with pytest.raises(ValueError, match=r"^DE: crossover rate CR must be in \[0, 1\], got 1.5$"):
        evogpu.minimize("rastrigin:5", backend="cpu", max_generations=1, options={"crossover_rate": 1.5})


def test_an_unknown_option_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown option `pop`; the options are population, "):
        evogpu.minimize("rastrigin:5", max_generations=1, options={"pop": 10})


def test_an_option_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError):
        evogpu.minimize("rastrigin:5", max_generations=1, options={"population": "many"})


@pytest.mark.parametrize(
    "name, message",
    [
        ("sphere:3", "unknown problem `sphere`"),
        ("rastrigin", "no dimension"),
        ("rastrigin:0", "dimension `0` is not an integer >= 1"),
        ("cec2010:f21:100", "expected f1..f20"),
        ("cec2006:g1:2", "too many"),
        ("knapsack:/no/such/file", "no such file"),
    ],
)
def test_bad_problem_names(name, message):
    with pytest.raises(ValueError, match=message):
        evogpu.minimize(name, max_generations=1)


def test_the_crates_refuse_a_bad_instance_with_value_error(tmp_path):
    path = tmp_path / "broken.knapsack"
    path.write_text("ten\n")
    with pytest.raises(ValueError, match="broken.knapsack:1: expected"):
        evogpu.minimize(f"knapsack:{path}", algorithm="ga")


def test_bounds_that_are_not_the_problem_box_are_refused():
    with pytest.raises(ValueError, match="defined on its own box"):
        evogpu.minimize("rastrigin", [(-1.0, 1.0)] * 3, max_generations=1)
    with pytest.raises(ValueError, match="dimension 4 in the name but 3 bounds"):
        evogpu.minimize("rastrigin:4", [(-5.12, 5.12)] * 3, max_generations=1)


def test_unknown_algorithm_and_backend():
    with pytest.raises(ValueError, match="unknown algorithm `pso`"):
        evogpu.minimize("rastrigin:3", algorithm="pso", max_generations=1)
    with pytest.raises(ValueError, match="backend"):
        evogpu.minimize("rastrigin:3", backend="tpu", max_generations=1)


def test_an_algorithm_refuses_a_problem_it_does_not_run():
    with pytest.raises(ValueError, match="dpga runs cec2006:gNN problems only"):
        evogpu.minimize("rastrigin:3", algorithm="dpga", max_generations=1)
    with pytest.raises(ValueError, match="ga does not run `rastrigin` problems"):
        evogpu.minimize("rastrigin:3", algorithm="ga", max_generations=1)
    with pytest.raises(ValueError, match="a Python function runs with algorithm=\"de\""):
        evogpu.minimize(rastrigin, RASTRIGIN_BOX, algorithm="ga", max_generations=1)


def test_de_needs_a_budget():
    with pytest.raises(ValueError, match="de needs a budget"):
        evogpu.minimize("rastrigin:3")


def test_a_python_function_needs_bounds():
    with pytest.raises(ValueError, match="needs bounds"):
        evogpu.minimize(rastrigin, max_generations=1)
    with pytest.raises(ValueError, match=r"lower bound|lower"):
        evogpu.minimize(rastrigin, [(1.0, -1.0)], max_generations=1)


def test_a_fitness_function_exception_is_raised_again():
    class Broken(Exception):
        pass

    def fitness(population):
        raise Broken("simulator down")

    with pytest.raises(Broken, match="simulator down"):
        evogpu.minimize(fitness, RASTRIGIN_BOX, max_generations=5)


def test_a_wrong_number_of_fitness_values_is_a_value_error():
    with pytest.raises(ValueError, match="must return 64 values, one per row, got 3"):
        evogpu.minimize(lambda p: [1.0, 2.0, 3.0], RASTRIGIN_BOX, max_generations=1)


def test_a_non_finite_fitness_is_a_value_error_naming_the_individual():
    def fitness(population):
        values = rastrigin(population)
        values[5] = np.inf
        return values

    with pytest.raises(ValueError, match="non-finite value inf for individual 5"):
        evogpu.minimize(fitness, RASTRIGIN_BOX, max_generations=1)


def test_a_missing_cuda_device_is_a_runtime_error():
    # No machine has 100 devices: without a GPU this is NoGpu, with one NoSuchDevice; both RuntimeError.
    with pytest.raises(RuntimeError):
        evogpu.minimize("rastrigin:3", backend="cuda:99", max_generations=1)


def test_a_zero_cadence_is_refused_by_the_executor():
    with pytest.raises(ValueError, match="history"):
        evogpu.minimize("rastrigin:3", backend="cpu", max_generations=5, history_every=0)
    with pytest.raises(ValueError, match="every"):
        evogpu.minimize("rastrigin:3", backend="cpu", max_generations=5, checkpoint="x.ckpt",
                        checkpoint_every=0)
