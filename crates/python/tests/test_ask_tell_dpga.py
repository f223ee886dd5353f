"""DpgaAskTell: DPGA by ask/tell, with objective and constraint values per point. Telling CEC 2006 g24's
values (computed here in the Rust formula's order) gives the `evo` command's DPGA run (the Rust API) on
cec2006:g24, bit for bit."""

import json
import subprocess

import numpy as np
import pytest

import evogpu
from test_rust_api import evo_binary

G24_BOX = [(0.0, 3.0), (0.0, 4.0)]


def g24(points):
    """CEC 2006 g24 in the order of evo-benchmarks' g24: objective, and the two inequalities."""
    x1, x2 = points[:, 0], points[:, 1]
    x1_2 = x1 * x1
    x1_3 = x1_2 * x1
    x1_4 = x1_3 * x1
    constraints = np.stack([
        -2.0 * x1_4 + 8.0 * x1_3 - 8.0 * x1_2 + x2 - 2.0,
        -4.0 * x1_4 + 32.0 * x1_3 - 88.0 * x1_2 + 96.0 * x1 + x2 - 36.0,
    ], axis=1)
    return -x1 - x2, constraints


def drive(dpga, generations):
    batches = []
    while dpga.generation < generations:
        points = dpga.ask()
        batches.append(len(points))
        dpga.tell(*g24(points))
    return batches


def test_ask_tell_matches_the_evo_command_on_g24(tmp_path):
    subprocess.run(
        [str(evo_binary()), "run", "dpga", "--problem", "cec2006:g24", "--seed", "3", "--backend", "cpu",
         "--generations", "15", "--out", str(tmp_path / "out"), "--quiet"],
        check=True, capture_output=True,
    )
    expected = json.loads((tmp_path / "out" / "result.json").read_text())
    dpga = evogpu.DpgaAskTell(G24_BOX, inequalities=2, seed=3)
    assert dpga.x is None and dpga.best is None
    batches = drive(dpga, 15)
    # Two initial batches (about 80 % of g24's box is feasible), then offspring and children.
    assert batches[:2] == [128, 128] and max(batches) <= 128
    assert dpga.generation == expected["generations"] == 15
    assert dpga.evaluations == expected["evaluations"]
    assert dpga.fun == expected["best_fitness"]
    np.testing.assert_array_equal(dpga.x, np.array(expected["best"], dtype=np.float64))
    result = evogpu.minimize("cec2006:g24", algorithm="dpga", backend="cpu", seed=3, max_generations=15)
    assert (dpga.fun, dpga.evaluations) == (result.fun, result.nfev)
    np.testing.assert_array_equal(dpga.best[0], result.x)


def test_an_unconstrained_problem_needs_no_constraints():
    dpga = evogpu.DpgaAskTell([(-2.0, 2.0)] * 3, seed=1, options={"main_size": 20, "reserve_size": 20})
    assert dpga.dimension == 3
    while dpga.generation < 10:
        points = dpga.ask()
        dpga.tell((points**2).sum(axis=1))
    assert 0.0 <= dpga.fun < 1.0


def test_bad_calls_raise_value_error():
    with pytest.raises(ValueError, match="Bounds|bound"):
        evogpu.DpgaAskTell([(1.0, 0.0)], inequalities=1)
    with pytest.raises(ValueError, match="unknown option `population`"):
        evogpu.DpgaAskTell(G24_BOX, options={"population": 10})
    with pytest.raises(ValueError, match="equality_tolerance"):
        evogpu.DpgaAskTell(G24_BOX, equality_tolerance=float("nan"))
    dpga = evogpu.DpgaAskTell(G24_BOX, inequalities=2, seed=3)
    with pytest.raises(ValueError, match="nothing was asked"):
        dpga.tell([0.0])
    points = dpga.ask()
    n = len(points)
    with pytest.raises(ValueError, match="have not been told"):
        dpga.ask()
    objective, constraints = g24(points)
    with pytest.raises(ValueError, match=f"expected {n} objective values"):
        dpga.tell(objective[1:], constraints)
    with pytest.raises(ValueError, match="constraints are required"):
        dpga.tell(objective)
    with pytest.raises(ValueError, match=rf"shape \({n}, 2\)"):
        dpga.tell(objective, constraints[:, :1])
    bad = objective.copy()
    bad[4] = np.nan
    with pytest.raises(ValueError, match=r"objective\[4\] is NaN"):
        dpga.tell(bad, constraints)
    bad = constraints.copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"constraints\[2, 1\] is inf"):
        dpga.tell(objective, bad)
    dpga.tell(objective, constraints)


def test_a_random_initialisation_asks_one_batch_and_matches_minimize():
    options = {"initialisation": "random", "main_size": 40, "reserve_size": 40}
    dpga = evogpu.DpgaAskTell(G24_BOX, inequalities=2, seed=8, options=options)
    batches = drive(dpga, 12)
    assert batches[0] == 40
    result = evogpu.minimize("cec2006:g24", algorithm="dpga", backend="cpu", seed=8, max_generations=12,
                             options=options)
    assert (dpga.fun, dpga.evaluations) == (result.fun, result.nfev)
    np.testing.assert_array_equal(dpga.x, result.x)
    with pytest.raises(ValueError, match='initialisation must be "feasible" or "random", got "greedy"'):
        evogpu.DpgaAskTell(G24_BOX, inequalities=2, options={"initialisation": "greedy"})
