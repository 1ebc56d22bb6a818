"""A pointwise scale given as text is read in ASCII digits and checked before it is built."""

from __future__ import annotations

from typing import Any

import pytest

from llm_qualitative_sort import MockLLMProvider, Pointwise, QualitativeSorter, Scale


@pytest.mark.parametrize(("scale", "error", "message"), [
    ("²-4", ValueError, "scale must be 'LOW-HIGH' such as '1-4', got '²-4'"),
    ("1-99999999999", ValueError,
     r"scale labels must be single digits 0-9 \(one token each\), got 1..99999999999$"),
    ("1-" + "9" * 5000, ValueError,
     r"scale labels must be single digits 0-9 .*, got 1..999999999999\.\.\.$"),
    ({"²": "low", "2": "high"}, TypeError, "scale labels must be integers, got '²'"),
])
def test_a_bad_scale_is_named_before_anything_is_built(
    scale: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^scale: {message}|^{message}"):
        QualitativeSorter(MockLLMProvider(), criteria="c", strategy=Pointwise(scale=scale))
    with pytest.raises(error, match=f"^scale: {message}|^{message}"):
        Pointwise(scale=scale)


def test_a_range_with_spaces_or_leading_zeros_is_read_as_before() -> None:
    assert Scale.parse(" 01 - 4 ").labels == (1, 2, 3, 4)
    assert Scale.parse({"0": "bad", 1: "good"}).labels == (0, 1)
