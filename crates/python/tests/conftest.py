"""Shared helpers of the evogpu test suite: small problem files and a NumPy Rastrigin."""

import numpy as np
import pytest


def rastrigin(population: np.ndarray) -> np.ndarray:
    """Rastrigin over the rows of ``population`` (n x D), NumPy's own arithmetic."""
    return 10.0 * population.shape[1] + (population**2 - 10.0 * np.cos(2.0 * np.pi * population)).sum(axis=1)


RASTRIGIN_BOX = [(-5.12, 5.12)] * 10


@pytest.fixture
def knapsack_file(tmp_path):
    """A 0/1 knapsack file: the capacity, then `weight profit` lines."""
    path = tmp_path / "small.knapsack"
    rows = [(12, 24), (7, 13), (11, 23), (8, 15), (9, 16), (6, 11), (5, 9), (14, 30)]
    path.write_text("30\n" + "".join(f"{w} {p}\n" for w, p in rows))
    return path


@pytest.fixture
def etc_file(tmp_path):
    """An ETC matrix of 8 tasks on 2 machines with its `tasks machines class` header, one value a line."""
    path = tmp_path / "small.etc"
    values = [float(10 + 7 * t + 3 * m) for t in range(8) for m in range(2)]
    path.write_text("8 2 0\n" + "".join(f"{v}\n" for v in values))
    return path
