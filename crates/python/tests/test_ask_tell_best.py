"""Every ask/tell engine reports its best as `best`, the pair `(x, fun)`, beside `x` and `fun`."""

import numpy as np

import evogpu
from conftest import RASTRIGIN_BOX, rastrigin


def test_de_and_ga_report_their_best_as_a_pair():
    de = evogpu.DeAskTell(RASTRIGIN_BOX, seed=1, options={"population": 12})
    ga = evogpu.GaAskTell(30, seed=1, options={"population": 12})
    assert de.best is None and ga.best is None
    for _ in range(5):
        de.tell(rastrigin(de.ask()))
        strings = ga.ask()
        ga.tell(-strings.sum(axis=1).astype(float))
    for engine in (de, ga):
        x, fun = engine.best
        assert fun == engine.fun
        np.testing.assert_array_equal(x, engine.x)
    assert de.fun == rastrigin(de.x[np.newaxis, :])[0]
    assert ga.fun == -ga.x.sum()
