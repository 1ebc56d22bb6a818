"""One request seam: the engine asks every question through `LLMProvider.answer`.

Providers written against `compare`/`compare_call`/`score_call` keep working through the
default `answer`; a provider may implement `answer` itself and declare what it answers.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    Elimination,
    LLMProvider,
    MockLLMProvider,
    PanelProvider,
    Pointwise,
    PointwiseResult,
    QualitativeSorter,
    Scale,
    Swiss,
)
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.providers import Compare, Question, Request, Score
from llm_qualitative_sort.testing import FunctionProvider

ITEMS = ["a" * n for n in (3, 9, 1, 7, 5, 2, 8, 4)]
BY_LENGTH = sorted(ITEMS, key=len, reverse=True)


async def _sort(judge: LLMProvider, strategy: Any, items: list[str] = ITEMS) -> SortResult:
    sorter = QualitativeSorter(judge, criteria="longer", strategy=strategy, seed=3,
                               checkpointer=None)
    return await sorter.sort(items)


def _order(result: SortResult) -> list[str]:
    return [item for _, tied in result.rankings for item in tied]


class OnlyCompare(LLMProvider):
    """The simple case: `compare` alone."""

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return ComparisonResult(winner="A" if len(item_a) > len(item_b) else "B", reasoning="")


class OldCompareCall(OnlyCompare):
    """Overrides `compare_call` with the signature of versions before ties."""

    def __init__(self) -> None:
        super().__init__(model="old")
        self.repetitions: list[int] = []

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,  # type: ignore[override]
                           repetition: int) -> ComparisonResult:
        self.repetitions.append(repetition)
        return await self.compare(item_a, item_b, criteria)


class Direct(LLMProvider):
    """Implements `answer` itself (no `compare`) and declares what it answers."""

    def __init__(self, *, ties: bool = True, model: str = "direct") -> None:
        super().__init__(model=model)
        self.ties = ties
        self.requests: list[Request] = []

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        return question in (Compare, Score) and (self.ties or not ties)

    async def answer(self, request: Request) -> ComparisonResult | PointwiseResult:
        self.requests.append(request)
        question = request.question
        if isinstance(question, Score):
            label = min(len(question.text), question.scale.labels[-1])
            return PointwiseResult(label=label, reason="length")
        first, second = len(question.first), len(question.second)
        return ComparisonResult(winner="A" if first > second else "B", reasoning="length")


async def test_a_provider_implementing_only_compare_answers_through_the_default() -> None:
    judge = OnlyCompare(model="len")
    answer = await judge.answer(Request(Compare("a", "bbb"), "longer", repetition=0))
    assert isinstance(answer, ComparisonResult) and answer.winner == "B"
    assert judge.answers(Compare) and judge.answers(Compare, ties=True)
    assert not judge.answers(Score)
    result = await _sort(judge, Elimination())
    assert _order(result)[0] == BY_LENGTH[0]
    assert result.statistics.failed_calls == 0
    with pytest.raises(TypeError, match="OnlyCompare has no score_call"):
        QualitativeSorter(judge, criteria="longer", strategy=Pointwise(), checkpointer=None)


async def test_an_old_compare_call_without_ties_runs_where_no_tie_is_offered() -> None:
    judge = OldCompareCall()
    assert judge.answers(Compare) and not judge.answers(Compare, ties=True)
    result = await _sort(judge, Elimination())
    assert result.statistics.failed_calls == 0
    assert judge.repetitions and set(judge.repetitions) == {0}  # one call per order
    with pytest.raises(TypeError, match=r"OldCompareCall\.compare_call takes no `ties`"):
        QualitativeSorter(OldCompareCall(), criteria="longer", strategy=Elimination(ties=True),
                          checkpointer=None)


async def test_a_provider_implementing_answer_directly_gets_one_request_per_call() -> None:
    judge = Direct()
    result = await _sort(judge, Swiss(ties=True, verdicts="soft", budget=12))
    assert len(judge.requests) == result.statistics.total_api_calls == 12
    assert all(isinstance(r.question, Compare) for r in judge.requests)
    assert {(r.criteria, r.ties, r.logprobs) for r in judge.requests} == {("longer", True, True)}
    shown = {(r.question.first, r.question.second) for r in judge.requests
             if isinstance(r.question, Compare)}
    assert shown <= {(a, b) for a in ITEMS for b in ITEMS if a != b}

    scorer = Direct(model="scores")
    scored = await _sort(scorer, Pointwise(scale=Scale.parse("1-5"), inverse=True,
                                           repetitions=2))
    questions = [r.question for r in scorer.requests]
    assert all(isinstance(q, Score) and q.inverse and q.scale.labels == (1, 2, 3, 4, 5)
               for q in questions)
    assert sorted(q.text for q in questions if isinstance(q, Score)) == sorted(ITEMS * 2)
    assert {r.repetition for r in scorer.requests} == {0, 1}
    assert {(r.ties, r.logprobs) for r in scorer.requests} == {(False, False)}
    assert scored.statistics.failed_calls == 0


async def test_the_engine_asks_through_answer_only() -> None:
    class Counted(MockLLMProvider):
        asked = 0

        async def answer(self, request: Request) -> ComparisonResult | PointwiseResult:
            Counted.asked += 1
            return await super().answer(request)

    judge = Counted(seed=1)
    result = await _sort(judge, Elimination())
    assert Counted.asked == result.statistics.total_api_calls > 0


async def test_a_declared_refusal_of_ties_is_read_before_any_call() -> None:
    with pytest.raises(TypeError, match=r"ties=True: Direct cannot be offered a tie"):
        QualitativeSorter(Direct(ties=False), criteria="longer",
                          strategy=Swiss(ties=True), checkpointer=None)


async def test_a_panel_declares_what_every_judge_answers() -> None:
    panel = PanelProvider([MockLLMProvider(seed=1), OldCompareCall()], seed=2)
    assert panel.answers(Compare) and not panel.answers(Compare, ties=True)
    assert not panel.answers(Score)
    assert PanelProvider([MockLLMProvider(seed=1), Direct()]).answers(Score)
    # Refused before any call, naming the judge that cannot be offered a tie.
    with pytest.raises(TypeError, match=r"OldCompareCall\.compare_call takes no `ties`"):
        QualitativeSorter(panel, criteria="longer", strategy=Elimination(ties=True),
                          checkpointer=None)
    request = Request(Compare("aaa", "a"), "longer", repetition=1)
    answer = await panel.answer(request)
    expected = await panel.judge_of("aaa", "a", repetition=1).answer(request)
    assert answer == expected


def test_function_provider_declares_its_functions() -> None:
    both = FunctionProvider(lambda a, b, c: "A", score=lambda t, c, s: 1)
    compares = FunctionProvider(lambda a, b, c: "A")
    scores = FunctionProvider(score=lambda t, c, s: 1)
    assert both.answers(Compare, ties=True) and both.answers(Score)
    assert compares.answers(Compare, ties=True) and not compares.answers(Score)
    assert scores.answers(Score) and not scores.answers(Compare)
    answer = asyncio.run(scores.answer(Request(Score("t", Scale.parse("1-5")), "c")))
    assert answer == PointwiseResult(label=1, reason="")
