"""A NumPy function over the whole population, ask/tell, and the same seed giving the same result."""

import numpy as np
import pytest

import evogpu
from conftest import RASTRIGIN_BOX, rastrigin


def test_a_numpy_function_sees_whole_populations():
    shapes = []

    def fitness(population):
        flags = population.flags
        shapes.append((population.shape, population.dtype, flags.c_contiguous, flags.writeable))
        return rastrigin(population)

    result = evogpu.minimize(fitness, RASTRIGIN_BOX, seed=1, max_generations=5)
    assert shapes == [((64, 10), np.float64, True, True)] * 6
    assert result.nfev == 64 * 6
    assert result.backend == "cpu"
    assert result.fun == pytest.approx(rastrigin(result.x[None, :])[0], rel=1e-12)


def test_the_same_seed_gives_the_same_result_and_another_seed_another():
    a = evogpu.minimize(rastrigin, RASTRIGIN_BOX, seed=11, max_generations=30)
    b = evogpu.minimize(rastrigin, RASTRIGIN_BOX, seed=11, max_generations=30)
    c = evogpu.minimize(rastrigin, RASTRIGIN_BOX, seed=12, max_generations=30)
    assert a.fun == b.fun
    np.testing.assert_array_equal(a.x, b.x)
    assert not np.array_equal(a.x, c.x)


def test_a_list_answer_is_accepted():
    result = evogpu.minimize(lambda p: list(rastrigin(p)), RASTRIGIN_BOX, max_generations=2)
    assert result.nit == 2


def test_a_strided_or_float32_answer_is_accepted():
    def strided(population):
        doubled = np.repeat(rastrigin(population), 2)
        return doubled[::2]  # a view that is not contiguous

    a = evogpu.minimize(strided, RASTRIGIN_BOX, seed=2, max_generations=3)
    b = evogpu.minimize(rastrigin, RASTRIGIN_BOX, seed=2, max_generations=3)
    assert a.fun == b.fun
    c = evogpu.minimize(lambda p: rastrigin(p).astype(np.float32), RASTRIGIN_BOX, max_generations=3)
    assert c.fun == float(np.float32(c.fun))


def test_an_answer_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="a 1-D array"):
        evogpu.minimize(lambda p: rastrigin(p)[:, None], RASTRIGIN_BOX, max_generations=1)


def test_ask_tell_gives_the_populations_of_minimize():
    generations = 25
    engine = evogpu.DeAskTell(RASTRIGIN_BOX, seed=7)
    for _ in range(generations + 1):
        population = engine.ask()
        assert population.shape == (64, 10)
        engine.tell(rastrigin(population))
    assert engine.generation == generations
    assert engine.evaluations == 64 * (generations + 1)
    reference = evogpu.minimize(rastrigin, RASTRIGIN_BOX, seed=7, max_generations=generations)
    assert engine.fun == reference.fun
    np.testing.assert_array_equal(engine.x, reference.x)


def test_ask_tell_takes_options():
    engine = evogpu.DeAskTell([(0.0, 1.0)] * 3, seed=1, options={"population": 8})
    assert engine.population_size == 8
    assert engine.ask().shape == (8, 3)


def test_ask_tell_refuses_out_of_order_calls_and_bad_fitness():
    engine = evogpu.DeAskTell(RASTRIGIN_BOX, seed=7)
    with pytest.raises(ValueError, match="nothing was asked"):
        engine.tell([0.0] * 64)
    population = engine.ask()
    with pytest.raises(ValueError, match="call tell"):
        engine.ask()
    with pytest.raises(ValueError, match="expected 64 fitness values"):
        engine.tell([1.0, 2.0])
    bad = rastrigin(population)
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"fitness\[3\] is NaN"):
        engine.tell(bad)
    engine.tell(rastrigin(population))
    assert engine.ask().shape == (64, 10)


def test_ask_tell_refuses_bad_options_with_the_crate_message():
    with pytest.raises(ValueError, match="population"):
        evogpu.DeAskTell(RASTRIGIN_BOX, options={"population": 2})


def onemax(strings):
    """Minus the ones of each row: minimised by the all-ones string."""
    return -strings.sum(axis=1).astype(np.float64)


def test_ga_ask_tell_gives_bit_strings_and_improves_onemax():
    engine = evogpu.GaAskTell(40, seed=3, options={"population": 32, "elite": 2})
    first = engine.ask()
    assert first.dtype == np.bool_ and first.shape == (32, 40)
    engine.tell(onemax(first))
    start = engine.fun
    for _ in range(30):
        strings = engine.ask()
        assert strings.shape == (30, 40)  # the elite is carried over, not re-evaluated
        engine.tell(onemax(strings))
    assert engine.generation == 30
    assert engine.evaluations == 32 + 30 * 30
    assert engine.fun < start
    assert engine.fun == -engine.x.sum()


def test_ga_ask_tell_is_deterministic_for_a_seed():
    def trace(seed):
        engine = evogpu.GaAskTell(20, seed=seed, options={"population": 16})
        asked = []
        for _ in range(5):
            strings = engine.ask()
            asked.append(strings.copy())
            engine.tell(onemax(strings))
        return asked

    a, b, c = trace(9), trace(9), trace(10)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0])


def test_ga_ask_tell_refuses_too_few_bits_and_bad_options():
    with pytest.raises(ValueError, match="bits must be at least 2, got 1"):
        evogpu.GaAskTell(1)
    with pytest.raises(ValueError, match="population"):
        evogpu.GaAskTell(8, options={"population": 0})
