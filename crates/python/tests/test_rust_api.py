"""The same seed gives the Rust API's result: the `evo` command runs the same engine through the same
`Run` path, and its result.json must match minimize's bit for bit."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import evogpu

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


def evo_binary():
    """`$EVO_BIN`, else the workspace's debug build of `evo`, built here when it is missing."""
    if "EVO_BIN" in os.environ:
        return pathlib.Path(os.environ["EVO_BIN"])
    binary = REPOSITORY / "target" / "debug" / "evo"
    if not binary.exists():
        subprocess.run(["cargo", "build", "--quiet", "-p", "evo-cli", "--bin", "evo"], cwd=REPOSITORY,
                       check=True)
    return binary


@pytest.mark.parametrize(
    "algorithm, problem, budget",
    [
        ("de", "rastrigin:10", ["--generations", "40"]),
        ("ma-sw-chains", "shifted-griewank:16", ["--evaluations", "2000"]),
        ("ga", "ga:f7:3", ["--generations", "15"]),
    ],
)
def test_minimize_matches_the_evo_command(tmp_path, algorithm, problem, budget):
    subprocess.run(
        [str(evo_binary()), "run", algorithm, "--problem", problem, "--seed", "7", "--backend", "cpu",
         *budget, "--out", str(tmp_path), "--quiet"],
        check=True, capture_output=True,
    )
    expected = json.loads((tmp_path / "result.json").read_text())
    limit = int(budget[1])
    by = {"max_generations": limit} if budget[0] == "--generations" else {"max_evaluations": limit}
    result = evogpu.minimize(problem, algorithm=algorithm, backend="cpu", seed=7, **by)
    assert result.fun == expected["best_fitness"]
    assert result.nfev == expected["evaluations"]
    assert result.nit == expected["generations"]
    if algorithm == "ga":
        # Bits serialize as words, bit i in word i // 32 at position i % 32.
        words, length = expected["best"]["words"], expected["best"]["len"]
        bits = [bool(words[i // 32] >> (i % 32) & 1) for i in range(length)]
        np.testing.assert_array_equal(result.x, np.array(bits))
    else:
        np.testing.assert_array_equal(result.x, np.array(expected["best"], dtype=np.float64))


@pytest.mark.parametrize("algorithm", ["qiga", "sga"])
def test_knapsack_algorithms_match_the_evo_command(tmp_path, knapsack_file, algorithm):
    problem = f"knapsack:{knapsack_file}"
    subprocess.run(
        [str(evo_binary()), "run", algorithm, "--problem", problem, "--seed", "3", "--backend", "cpu",
         "--generations", "20", "--set", "population=16", "--out", str(tmp_path / "out"), "--quiet"],
        check=True, capture_output=True,
    )
    expected = json.loads((tmp_path / "out" / "result.json").read_text())
    result = evogpu.minimize(problem, algorithm=algorithm, backend="cpu", seed=3, max_generations=20,
                             options={"population": 16})
    assert result.fun == expected["best_fitness"]
    assert result.nfev == expected["evaluations"]
