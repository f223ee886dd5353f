"""QigaAskTell: QIGA by ask/tell. Repairing each observed string as the knapsack engine does and telling
minus its profit gives the `evo` command's QIGA run (the Rust API) on that knapsack, bit for bit."""

import json
import subprocess

import numpy as np
import pytest

import evogpu
from test_ask_tell_sga import index_order_repair, read_knapsack
from test_rust_api import evo_binary


def test_repaired_ask_tell_matches_the_evo_command(tmp_path, knapsack_file):
    subprocess.run(
        [str(evo_binary()), "run", "qiga", "--problem", f"knapsack:{knapsack_file}", "--seed", "3", "--backend",
         "cpu", "--generations", "20", "--set", "population=16", "--out", str(tmp_path / "out"), "--quiet"],
        check=True, capture_output=True,
    )
    expected = json.loads((tmp_path / "out" / "result.json").read_text())
    capacity, weights, profits = read_knapsack(knapsack_file)
    qiga = evogpu.QigaAskTell(len(weights), seed=3, options={"population": 16})
    for _ in range(21):
        repaired, fitness = index_order_repair(qiga.ask(), capacity, weights, profits)
        qiga.tell(fitness, repaired)
    assert qiga.generation == expected["generations"] == 20
    assert qiga.evaluations == expected["evaluations"]
    assert qiga.fun == expected["best_fitness"]
    words, length = expected["best"]["words"], expected["best"]["len"]
    np.testing.assert_array_equal(qiga.x, [bool(words[i // 32] >> (i % 32) & 1) for i in range(length)])
    result = evogpu.minimize(f"knapsack:{knapsack_file}", algorithm="qiga", backend="cpu", seed=3,
                             max_generations=20, options={"population": 16})
    assert (qiga.fun, qiga.evaluations) == (result.fun, result.nfev)


def test_a_fitness_of_any_sign_improves_and_the_same_seed_repeats_the_run():
    weights = np.arange(40) % 5 - 2.5

    def run(seed):
        qiga = evogpu.QigaAskTell(40, seed=seed, options={"population": 10})
        for _ in range(60):
            strings = qiga.ask()
            assert strings.shape == (10, 40) and strings.dtype == np.bool_
            qiga.tell(strings.astype(float) @ weights)
        return qiga

    first, again = run(2), run(2)
    assert first.fun == first.x.astype(float) @ weights
    assert first.fun < -20
    assert (first.fun, first.generation, first.evaluations) == (again.fun, 59, 600)
    np.testing.assert_array_equal(first.best[0], again.x)


def test_bad_calls_raise_value_error_with_the_crates_message():
    qiga = evogpu.QigaAskTell(10, options={"population": 4})
    assert qiga.best is None and qiga.x is None
    with pytest.raises(ValueError, match="nothing was asked"):
        qiga.tell([0.0] * 4)
    asked = qiga.ask()
    with pytest.raises(ValueError, match="has not been told"):
        qiga.ask()
    with pytest.raises(ValueError, match="4, one per asked string"):
        qiga.tell([0.0] * 5)
    with pytest.raises(ValueError, match="inf"):
        qiga.tell([0.0, float("inf"), 0.0, 0.0])
    with pytest.raises(ValueError, match=r"shape \(4, 10\)"):
        qiga.tell([0.0] * 4, np.zeros((5, 10), dtype=bool))
    qiga.tell([3.0, -1.0, -2.5, 7.0], asked)
    assert qiga.fun == -2.5
    np.testing.assert_array_equal(qiga.x, asked[2])
    with pytest.raises(ValueError, match="bit count"):
        evogpu.QigaAskTell(0)
    with pytest.raises(ValueError, match="population"):
        evogpu.QigaAskTell(10, options={"population": 0})
