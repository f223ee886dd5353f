"""QIGA and SGA take their backend by evo-core's rule (choose_backend), as every other door: "auto" never
falls back silently, and the result says which backend ran and why (metadata "backend_reason").

On a machine without a CUDA device "auto" runs on the CPU and gives the driver's reason; under
EVO_REQUIRE_GPU=1 (the GPU machine) it must take device 0 and say so."""

import os

import pytest

import evogpu


def run(knapsack_file, algorithm, backend):
    return evogpu.minimize(f"knapsack:{knapsack_file}", algorithm=algorithm, backend=backend, seed=3,
                           max_generations=5, options={"population": 8})


@pytest.mark.parametrize("algorithm", ["qiga", "sga"])
def test_auto_reports_which_backend_ran_and_why(knapsack_file, algorithm):
    result = run(knapsack_file, algorithm, "auto")
    reason = result.metadata["backend_reason"]
    if reason.startswith("Backend::Auto: no CUDA device ("):
        assert os.environ.get("EVO_REQUIRE_GPU") != "1", f"EVO_REQUIRE_GPU=1 requires a CUDA device: {reason}"
        assert result.backend == "cpu"
    else:
        assert reason == "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
        assert result.backend == "cuda:0"
        assert result.metadata["profile"] == "exact"
        assert result.metadata["device"]


@pytest.mark.parametrize("algorithm", ["qiga", "sga"])
def test_an_explicit_cpu_backend_records_that_it_was_asked_for(knapsack_file, algorithm):
    result = run(knapsack_file, algorithm, "cpu:2")
    assert result.backend == "cpu:2"
    assert result.metadata["backend_reason"] == "cpu:2 was asked for"


@pytest.mark.parametrize("algorithm", ["qiga", "sga"])
def test_auto_gives_the_result_of_the_backend_it_names(knapsack_file, algorithm):
    auto = run(knapsack_file, algorithm, "auto")
    named = run(knapsack_file, algorithm, auto.backend)
    assert auto.fun == named.fun
    assert auto.nfev == named.nfev
