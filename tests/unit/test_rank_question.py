"""The ranking question and its answer: what a ranking call asks and what counts as an order."""

from __future__ import annotations

import pytest

from llm_qualitative_sort import Error
from llm_qualitative_sort.providers import Rank
from llm_qualitative_sort.verdicts import RankingResult, ranking_order

LABELS = ("A", "B", "C", "D")


def test_rank_labels_follow_the_texts_shown() -> None:
    assert Rank(("w", "x", "y", "z")).labels == LABELS


@pytest.mark.parametrize("size", [0, 1, 2, 9])
def test_rank_refuses_sizes_outside_three_to_eight(size: int) -> None:
    with pytest.raises(Error, match="3 to 8 texts"):
        Rank(tuple("t" * (i + 1) for i in range(size)))


def test_a_full_order_is_read_best_first() -> None:
    assert ranking_order(["c", " A", "D", "B"], LABELS, ties=False) == (
        (("C",), ("A",), ("D",), ("B",)), "")


@pytest.mark.parametrize(("answer", "problem"), [
    (["A", "B", "C"], "'D' is missing"),
    (["A", "B", "C", "C"], "'C' is named twice"),
    (["A", "B", "C", "D", "E"], "'E' was not shown"),
    (["A", "B", "C", 4], "every place must name labels"),
    ([], "non-empty list"),
    ("ABCD", "non-empty list"),
    ([["A", "B"], "C", "D"], "does not allow ties"),
])
def test_anything_but_an_order_of_exactly_the_labels_shown_is_no_order(
        answer: object, problem: str) -> None:
    order, said = ranking_order(answer, LABELS, ties=False)
    assert order is None
    assert problem in said


def test_ties_share_a_place_only_where_the_run_allows_them() -> None:
    assert ranking_order([["B", "D"], "A", "C"], LABELS, ties=True)[0] == (
        ("B", "D"), ("A",), ("C",))


def test_a_ranking_result_refuses_fields_of_the_wrong_kind() -> None:
    with pytest.raises(Error, match="order must be None"):
        RankingResult(order=(("A",), ()), reasoning="")
    with pytest.raises(Error, match="input_tokens"):
        RankingResult(order=None, reasoning="", input_tokens=-1)
    assert RankingResult(order=None, reasoning="no order").order is None
