"""Soft verdicts: reading the probability, the mock's log-probabilities, the soft fit."""

from __future__ import annotations

import asyncio
import math
import random

import pytest

from llm_qualitative_sort import Elimination, MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.models import ComparisonResult, InvalidAnswerError, MatchResult
from llm_qualitative_sort.models import RoundResult as Call
from llm_qualitative_sort.providers.logprobs import (
    Token,
    gemini_tokens,
    openai_tokens,
    verdict_probability,
)
from llm_qualitative_sort.rating.result import Rating
from llm_qualitative_sort.results.calibration import calibration


def softmax(z: dict[str, float]) -> dict[str, float]:
    total = sum(math.exp(v) for v in z.values())
    return {k: math.exp(v) / total for k, v in z.items()}


def tokens(answer_head: str, verdict: str, top: dict[str, float], tail: str = '"}') -> list[Token]:
    return [Token(answer_head, 0.0, {}), Token(verdict, top.get(verdict, -1.0), top),
            Token(tail, 0.0, {})]


@pytest.mark.parametrize("top", [
    {"A": -0.2, "B": -1.9},
    {"A": -3.0, "B": -0.1, "tie": -2.0},
    {"B": -0.05, "Be": -0.5, "C": -4.0},  # only one label among the alternatives
])
def test_probability_is_the_softmax_over_the_labels_sent(top: dict[str, float]) -> None:
    found, labels = verdict_probability(tokens('{"reasoning": "x", "winner": "', "B", top))
    shares = softmax({k: v for k, v in top.items() if k in ("A", "B", "tie")})
    assert found == pytest.approx(shares.get("A", 0.0) + 0.5 * shares.get("tie", 0.0))
    assert set(labels) == set(shares)


def test_the_verdict_token_may_carry_the_quote_and_the_label_may_be_split() -> None:
    head = '{"reasoning": "A or B? \\"winner\\": \\"A\\"", "winner": '
    top = {'"A': math.log(0.2), '"B': math.log(0.5), '"t': math.log(0.3), '"The': -1.0}
    found, labels = verdict_probability(tokens(head, '"B', top))
    assert found == pytest.approx(0.2 + 0.5 * 0.3)
    assert set(labels) == {"A", "B", "tie"}


def test_no_winner_or_no_label_is_no_probability() -> None:
    assert verdict_probability(tokens('{"reasoning": "', "x", {"x": 0.0}))[0] is None
    assert verdict_probability(tokens('{"winner": "', "Z", {"Z": 0.0}))[0] is None
    assert verdict_probability([])[0] is None


def test_openai_and_gemini_wire_formats_read_alike() -> None:
    openai = {"content": [
        {"token": '{"winner": "', "logprob": 0.0, "top_logprobs": []},
        {"token": "A", "logprob": -0.3, "top_logprobs": [
            {"token": "A", "logprob": -0.3}, {"token": "B", "logprob": -1.5}]},
        {"token": '"}', "logprob": 0.0, "top_logprobs": []}]}
    gemini = {"chosenCandidates": [{"token": '{"winner": "', "logProbability": 0.0},
                                   {"token": "A", "logProbability": -0.3},
                                   {"token": '"}', "logProbability": 0.0}],
              "topCandidates": [{"candidates": []},
                                {"candidates": [{"token": "A", "logProbability": -0.3},
                                                {"token": "B", "logProbability": -1.5}]},
                                {"candidates": []}]}
    expected = softmax({"A": -0.3, "B": -1.5})["A"]
    assert verdict_probability(openai_tokens(openai))[0] == pytest.approx(expected)
    assert verdict_probability(gemini_tokens(gemini))[0] == pytest.approx(expected)


def test_a_probability_must_be_valid() -> None:
    with pytest.raises(InvalidAnswerError, match="probability"):
        ComparisonResult("A", "", probability=1.5)
    with pytest.raises(InvalidAnswerError, match="no verdict"):
        ComparisonResult(None, "", probability=0.5)


def test_mock_log_probabilities_leave_the_verdicts_unchanged() -> None:
    plain = MockLLMProvider(seed=4)
    soft = MockLLMProvider(seed=4, logprobs="calibrated")
    over = MockLLMProvider(seed=4, logprobs="overconfident")

    async def calls() -> list[tuple[ComparisonResult, ...]]:
        pairs = [(str(i), str(i + d)) for i in range(0, 60, 3) for d in (1, 2, 5)]
        return [tuple([await m.compare_call(a, b, "x", repetition=r) for m in (plain, soft, over)])
                for r in range(3) for a, b in pairs]

    found = asyncio.run(calls())
    assert all(p.winner == s.winner == o.winner for p, s, o in found)
    assert all(p.probability is None and s.probability is not None for p, s, _ in found)
    # Over-confident: further from ½ than the calibrated statement of the same call.
    assert all(abs(o.probability - 0.5) >= abs(s.probability - 0.5) - 1e-12  # type: ignore[operator]
               for _, s, o in found)
    assert plain.model_identity != soft.model_identity != over.model_identity


def test_mock_calibrated_probabilities_match_how_often_the_first_text_wins() -> None:
    judge = MockLLMProvider(seed=9, logprobs="calibrated", noise_stddev=5.0)
    draw = random.Random(1)
    pairs = [(str(draw.randrange(100)), str(draw.randrange(100))) for _ in range(6000)]

    async def calls() -> list[ComparisonResult]:
        return [await judge.compare_call(a, b, "x", repetition=0) for a, b in pairs if a != b]

    found = asyncio.run(calls())
    for low in (0.2, 0.4, 0.6):
        part = [c for c in found if low <= c.probability < low + 0.2]  # type: ignore[operator]
        stated = sum(c.probability for c in part) / len(part)  # type: ignore[misc]
        observed = sum(c.winner == "A" for c in part) / len(part)
        assert len(part) > 100 and abs(stated - observed) < 3.5 * math.sqrt(0.25 / len(part))


def test_soft_fit_reads_probabilities_and_hard_ignores_them() -> None:
    # "x" beat "y" in both calls, each time with a stated probability of only 0.6.
    match = MatchResult("x", "y", "A", [Call("AB", "A", "", False, probability=0.6),
                                        Call("BA", "A", "", False, probability=0.6)])
    hard, soft = Rating(["x", "y"], [match]).scores(), Rating(["x", "y"], [match], True).scores()
    assert 0 < soft["x"] < hard["x"]


def test_calibration_scores_each_soft_call_against_its_swapped_call() -> None:
    matches = [MatchResult("x", "y", "A", [Call("AB", "A", "", False, probability=0.8),
                                           Call("BA", "A", "", False, probability=0.9)])]
    found = calibration(matches)
    assert found is not None and found.soft_calls == 2 and found.share == 1.0
    # AB: x first, p 0.8, x won the BA call → (0.8 - 1)²; BA: y first, p 0.1, y lost → 0.1².
    assert found.brier == pytest.approx(((0.8 - 1) ** 2 + 0.1 ** 2) / 2)
    assert calibration([MatchResult("x", "y", "A", [Call("AB", "A", "", False)])]) is None


def test_verdicts_is_checked_and_hard_is_the_default() -> None:
    with pytest.raises(ValueError, match="verdicts"):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="x", checkpointer=None,
                          strategy=Elimination(verdicts="fuzzy"))  # type: ignore[arg-type]
    assert Elimination().verdicts == Swiss().verdicts == "hard"


def test_soft_swiss_on_a_mock_without_probabilities_equals_hard() -> None:
    items = [str(i) for i in range(24)]

    def run(verdicts: str, mode: str | None) -> list[tuple[int, list[str]]]:
        judge = MockLLMProvider(seed=2, noise_stddev=4.0, logprobs=mode)  # type: ignore[arg-type]
        sorter = QualitativeSorter(judge, criteria="x", seed=2, checkpointer=None,
                                   strategy=Swiss(budget=60, verdicts=verdicts))  # type: ignore[arg-type]
        return asyncio.run(sorter.sort(items)).rankings

    assert run("soft", None) == run("hard", None) == run("hard", "calibrated")
    assert run("soft", "calibrated") != run("hard", "calibrated")
