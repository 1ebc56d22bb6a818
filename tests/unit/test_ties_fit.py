"""A tied call is half a win for each side wherever calls become evidence."""

from __future__ import annotations

from llm_qualitative_sort.bradley_terry import call_observations, fit_strengths, shown_calls
from llm_qualitative_sort.models import MatchResult, RoundResult
from llm_qualitative_sort.results.audit import audit
from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence


def _call(order: str, winner: str | None) -> RoundResult:
    return RoundResult(order, winner, "", False)  # type: ignore[arg-type]


def test_a_tie_is_half_a_win_in_every_view_of_the_calls() -> None:
    match = MatchResult("x", "y", None, [_call("AB", "tie"), _call("BA", "tie"),
                                         _call("AB", "A"), _call("BA", None)])
    first, second, shares = shown_calls(["x", "y"], [match])
    assert list(shares) == [0.5, 0.5, 1.0] and list(first) == [0, 1, 0]
    assert call_observations([match]) == [("x", "y", 0.5), ("x", "y", 0.5), ("x", "y", 1.0)]
    history = [{"matches": [[0, 1, None, [["AB", "tie"], ["BA", "tie"], ["AB", "A"],
                                          ["BA", None]]]]}]
    evidence = gather_evidence(history, 2)
    assert list(evidence.first_won) == [0.5, 0.5, 1.0] and evidence.calls == 4


def test_ties_move_strengths_between_a_win_and_a_loss() -> None:
    # a beat c; b tied c; c lost to d: a tie ranks b between the winner and the loser.
    scores = fit_strengths(["a", "b", "c", "d"], [("a", "c", 1.0), ("b", "c", 0.5),
                                                  ("c", "d", 0.0)])
    assert scores["a"] > scores["b"] > scores["c"]
    level = fit_strengths(["x", "y"], [("x", "y", 0.5)] * 6)
    assert level["x"] == level["y"]


def test_the_audit_counts_ties_per_judge_and_keeps_them_out_of_the_order_figures() -> None:
    matches = [
        MatchResult("x", "y", "A", [_call("AB", "A"), _call("BA", "A")]),  # consistent
        MatchResult("x", "z", None, [_call("AB", "tie"), _call("BA", "A")]),
        MatchResult("y", "z", None, [_call("AB", "tie"), _call("BA", "tie")]),
    ]
    found = audit(matches, "judge")
    (judge,) = found.judges
    assert judge.tied_calls == 3 and judge.failed_calls == 0
    assert judge.tie_rate == 0.5
    assert found.order_consistency.pairs == 1  # only the pair without a tie
    assert found.position_bias is not None and found.position_bias.calls == 3
