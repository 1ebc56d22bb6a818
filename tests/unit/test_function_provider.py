"""The judge made from plain functions, through the public surface a user's tests use."""

from __future__ import annotations

import asyncio

import pytest

import llm_qualitative_sort as lqs
from llm_qualitative_sort import ComparisonResult, PointwiseResult, QualitativeSorter
from llm_qualitative_sort.testing import FunctionProvider

TEXTS = ["a", "aaaa", "aa", "aaaaa", "aaa"]
BY_LENGTH = sorted(TEXTS, key=len, reverse=True)


def longer(a: str, b: str, criteria: str) -> str:
    return "A" if len(a) >= len(b) else "B"


def order(result: lqs.SortResult) -> list[str]:
    return [item for _, items in result.rankings for item in items]


def sorter(judge: FunctionProvider, **options: object) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="longer", seed=1, checkpointer=None,
                             **options)  # type: ignore[arg-type]


def test_a_plain_function_ranks_through_the_engine() -> None:
    result = asyncio.run(sorter(FunctionProvider(longer), strategy="swiss").sort(TEXTS))
    assert order(result) == BY_LENGTH
    calls = [call for match in result.match_history for call in match.rounds]
    assert calls and all(call.winner in ("A", "B") for call in calls)


def test_an_async_function_and_a_whole_result_are_taken_as_given() -> None:
    async def judge(a: str, b: str, criteria: str) -> ComparisonResult:
        await asyncio.sleep(0)
        return ComparisonResult(winner="A" if len(a) >= len(b) else "B",
                                reasoning=f"{criteria}: {len(a)} vs {len(b)}")

    result = asyncio.run(sorter(FunctionProvider(judge)).sort(TEXTS))
    reasons = {call.reasoning for match in result.match_history for call in match.rounds}
    assert all(reason.startswith("longer: ") for reason in reasons)


def test_a_tie_counts_only_where_the_run_allows_ties() -> None:
    def always_tie(a: str, b: str, criteria: str) -> str:
        return "tie"

    tied = asyncio.run(sorter(FunctionProvider(always_tie),
                              strategy=lqs.Elimination(ties=True)).sort(TEXTS[:3]))
    untied = asyncio.run(sorter(FunctionProvider(always_tie)).sort(TEXTS[:3]))
    assert {c.winner for m in tied.match_history for c in m.rounds} == {"tie"}
    assert {c.winner for m in untied.match_history for c in m.rounds} == {None}


def test_a_bad_answer_stops_the_run_naming_the_judge() -> None:
    def broken(a: str, b: str, criteria: str) -> str:
        return "first"

    with pytest.raises(lqs.RunStoppedError, match="FunctionProvider.*answered badly"):
        asyncio.run(sorter(FunctionProvider(broken)).sort(TEXTS[:3]))


def test_a_score_function_ranks_a_pointwise_run_and_the_inverse_question_mirrors() -> None:
    def score(text: str, criteria: str, scale: lqs.Scale) -> int:
        return min(len(text), scale.labels[-1])

    judge = FunctionProvider(score=score)
    texts = ["aa", "aaaa", "a", "aaa"]
    plain = asyncio.run(sorter(judge, strategy=lqs.Pointwise()).sort(texts))
    assert order(plain) == ["aaaa", "aaa", "aa", "a"]
    asked = asyncio.run(sorter(judge, strategy=lqs.Pointwise(inverse=True)).sort(texts))
    assert order(asked) == order(plain)  # the inverse question ranks the same way
    labels = {s.item: [c.label for c in s.calls] for s in asked.pointwise}
    assert labels["aaaa"] == [1]  # 4 on 1..4, mirrored: nothing is missing


def test_a_judge_without_a_score_function_is_refused_before_any_call() -> None:
    calls: list[str] = []

    def judge(a: str, b: str, criteria: str) -> str:
        calls.append(a)
        return "A"

    with pytest.raises(TypeError, match="cannot score a text alone"):
        sorter(FunctionProvider(judge), strategy=lqs.Pointwise())
    assert calls == []


def test_a_whole_pointwise_result_keeps_its_reason() -> None:
    judge = FunctionProvider(score=lambda text, criteria, scale: PointwiseResult(2, "so so"))
    result = asyncio.run(sorter(judge, strategy=lqs.Pointwise()).sort(TEXTS[:2]))
    assert {c.reason for s in result.pointwise for c in s.calls} == {"so so"}


def test_construction_needs_a_callable() -> None:
    with pytest.raises(TypeError, match="needs a compare function"):
        FunctionProvider()
    with pytest.raises(TypeError, match="compare must be callable"):
        FunctionProvider("A")  # type: ignore[arg-type]


def test_its_identity_names_the_function_so_caches_keep_judges_apart() -> None:
    assert FunctionProvider(longer).model_identity == "FunctionProvider:longer"
    assert FunctionProvider(longer, model="v2").model_identity == "FunctionProvider:v2"
