"""The local model's server ranks log-probabilities by numpy (`_llama_server.ranked`): it must
give exactly what Python's `sorted` gives, or the real-model tests would check a server whose
answers differ from llama-cpp-python's own."""

from __future__ import annotations

import numpy as np
import pytest
from _llama_server import ranked

# Ties (the order then goes by token, descending), both zeros, and the log of a zero.
TIED = np.array([-np.inf, -0.0, 0.0, -1.5, -2.25, -3.0], dtype=np.float32)


def pairs(row: object) -> zip[tuple[object, int]]:
    return zip(row, range(len(row)), strict=False)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(6))
def test_a_row_is_ranked_as_sorted_ranks_it(seed: int) -> None:
    rng = np.random.default_rng(seed)
    row = (rng.choice(TIED, 3000) if seed % 2 else rng.standard_normal(3000)).astype(np.float32)
    expected = sorted(pairs(row), reverse=True)
    got = ranked(pairs(row), reverse=True)
    assert got == expected
    # The same scalars, so the server writes the same numbers.
    assert [(type(v), type(i), repr(v)) for v, i in got] == [
        (type(v), type(i), repr(v)) for v, i in expected]


def test_anything_else_is_left_to_sorted() -> None:
    row = np.array([0.5, -1.0, 0.5, np.nan], dtype=np.float32)
    assert ranked([3, 1, 2]) == [1, 2, 3]
    assert ranked([3, 1, 2], reverse=True) == [3, 2, 1]
    assert ranked(["b", "a"], key=str.upper) == ["a", "b"]
    finite = row[:3]
    assert ranked(pairs(finite)) == sorted(pairs(finite))  # ascending
    started = pairs(finite)
    next(started)
    assert ranked(started, reverse=True) == [(0.5, 2), (-1.0, 1)]
    assert ranked(zip(finite, range(1, 4), strict=False), reverse=True) == sorted(
        zip(finite, range(1, 4), strict=False), reverse=True)
    # What `sorted` makes of a NaN, not numpy's order (NaN != NaN: compare the reprs).
    assert repr(ranked(pairs(row), reverse=True)) == repr(sorted(pairs(row), reverse=True))
