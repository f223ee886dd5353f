"""SgaAskTell: the SGA baseline by ask/tell. Repairing each asked string as the knapsack engine does and
telling minus its profit gives the `evo` command's SGA run (the Rust API) on that knapsack, bit for bit."""

import json
import subprocess

import numpy as np
import pytest

import evogpu
from test_rust_api import evo_binary


def read_knapsack(path):
    lines = path.read_text().split("\n")
    capacity = float(lines[0])
    rows = [line.split() for line in lines[1:] if line.strip()]
    return capacity, [float(w) for w, _ in rows], [float(p) for _, p in rows]


def index_order_repair(strings, capacity, weights, profits):
    """The paper's repair (evo_benchmarks::Knapsack::repair_row): drop items in index order while over the
    capacity, then add items in index order until one does not fit, and drop that last one."""
    repaired = strings.copy()
    fitness = []
    for row in repaired:
        weight = sum(w for w, bit in zip(weights, row) if bit)
        over = weight > capacity
        i = 0
        while i < len(row) and over:
            if row[i]:
                weight -= weights[i]
            row[i] = False
            over = weight > capacity
            i += 1
        last = None
        j = 0
        while j < len(row) and not over:
            if not row[j]:
                weight += weights[j]
            row[j] = True
            over = weight > capacity
            last = j
            j += 1
        if last is not None:
            row[last] = False
        fitness.append(-sum(p for p, bit in zip(profits, row) if bit))
    return repaired, np.array(fitness)


def test_repaired_ask_tell_matches_the_evo_command(tmp_path, knapsack_file):
    subprocess.run(
        [str(evo_binary()), "run", "sga", "--problem", f"knapsack:{knapsack_file}", "--seed", "3", "--backend",
         "cpu", "--generations", "20", "--set", "population=16", "--out", str(tmp_path / "out"), "--quiet"],
        check=True, capture_output=True,
    )
    expected = json.loads((tmp_path / "out" / "result.json").read_text())
    capacity, weights, profits = read_knapsack(knapsack_file)
    sga = evogpu.SgaAskTell(len(weights), seed=3, options={"population": 16})
    for _ in range(21):
        repaired, fitness = index_order_repair(sga.ask(), capacity, weights, profits)
        sga.tell(fitness, repaired)
    assert sga.generation == expected["generations"] == 20
    assert sga.evaluations == expected["evaluations"]
    assert sga.fun == expected["best_fitness"]
    words, length = expected["best"]["words"], expected["best"]["len"]
    np.testing.assert_array_equal(sga.x, [bool(words[i // 32] >> (i % 32) & 1) for i in range(length)])
    result = evogpu.minimize(f"knapsack:{knapsack_file}", algorithm="sga", backend="cpu", seed=3,
                             max_generations=20, options={"population": 16})
    assert (sga.fun, sga.evaluations) == (result.fun, result.nfev)


def test_onemax_improves_and_the_same_seed_repeats_the_run():
    def run(seed):
        sga = evogpu.SgaAskTell(48, seed=seed, options={"population": 24})
        for _ in range(40):
            strings = sga.ask()
            assert strings.shape == (24, 48) and strings.dtype == np.bool_
            sga.tell(-strings.sum(axis=1).astype(float))
        return sga

    first, again = run(9), run(9)
    assert first.fun <= -36
    assert first.fun == -first.x.sum()
    assert (first.fun, first.generation, first.evaluations) == (again.fun, 39, 40 * 24)
    np.testing.assert_array_equal(first.x, again.x)
    np.testing.assert_array_equal(first.best[0], first.x)


def test_bad_calls_raise_value_error_with_the_crates_message():
    sga = evogpu.SgaAskTell(10, options={"population": 4})
    assert sga.best is None and sga.fun is None
    with pytest.raises(ValueError, match="nothing was asked"):
        sga.tell([0.0] * 4)
    asked = sga.ask()
    with pytest.raises(ValueError, match="has not been told"):
        sga.ask()
    with pytest.raises(ValueError, match="4, one per asked string"):
        sga.tell([0.0] * 3)
    with pytest.raises(ValueError, match="non-finite|NaN|finite"):
        sga.tell([0.0, float("nan"), 0.0, 0.0])
    with pytest.raises(ValueError, match=r"at most 0 .*got 2.5 \(row 2\)"):
        sga.tell([0.0, -1.0, 2.5, 0.0])
    with pytest.raises(ValueError, match=r"shape \(4, 10\)"):
        sga.tell([0.0] * 4, np.zeros((4, 9), dtype=bool))
    sga.tell([0.0, -1.0, -2.5, 0.0], asked)
    assert sga.fun == -2.5
    with pytest.raises(ValueError, match="bits per string"):
        evogpu.SgaAskTell(0)
    with pytest.raises(ValueError, match="unknown option `elite`"):
        evogpu.SgaAskTell(10, options={"elite": 1})
