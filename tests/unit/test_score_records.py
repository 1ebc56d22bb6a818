"""A text scored alone is planned and stored as a score, never as a match with itself."""

import asyncio
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.graph.state import planned_round
from llm_qualitative_sort.tournament import (
    Elimination,
    PlannedScore,
    Pointwise,
    PointwiseStrategy,
    Swiss,
    scores_alone,
)
from llm_qualitative_sort.tournament.records import (
    CallRecord,
    ScoreRecord,
    round_matches,
    round_scores,
)
from llm_qualitative_sort.tournament.swiss import prepass

ITEMS = [str(i) for i in range(0, 60, 5)]
LABELLED = ["AB", "A", "", False, 3, 1, {"pointwise": {"label": 3, "distribution": None}}]


def _final_state(settings: dict[str, Any]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        graph = build_graph(InMemorySaver())
        config: Any = {"configurable": {"thread_id": "t"}}
        await graph.ainvoke({"items": ITEMS, "criteria": "larger", "seed": 3,
                             "settings": settings}, config)
        return dict((await graph.aget_state(config)).values)
    return asyncio.run(run())


def test_pointwise_plans_scores_repetition_by_repetition() -> None:
    plan = PointwiseStrategy(Pointwise(repetitions=2), 3, seed=1).plan({}, [], 1)
    assert plan.matches == []
    assert plan.scores == [PlannedScore(0, 0), PlannedScore(1, 0), PlannedScore(2, 0),
                           PlannedScore(0, 1), PlannedScore(1, 1), PlannedScore(2, 1)]


def test_a_pre_pass_is_stored_in_its_rounds_scores() -> None:
    history = _final_state({"strategy": "swiss", "budget": 40, "prepass": "pointwise"})[
        "history"]
    first, *later = history
    assert first["matches"] == []
    assert [item for item, _call in first["scores"]] == list(range(len(ITEMS)))
    assert all(ScoreRecord.read(stored).stored() == stored for stored in first["scores"])
    assert all("scores" not in entry and all(a != b for a, b, *_ in entry["matches"])
               for entry in later)


def test_a_pointwise_run_stores_every_repetition_as_a_score() -> None:
    (entry,) = _final_state({"strategy": "pointwise", "repetitions": 2})["history"]
    assert entry["matches"] == []
    assert sorted(item for item, _call in entry["scores"]) == sorted(2 * list(range(12)))


def test_an_earlier_versions_self_matches_read_as_scores() -> None:
    earlier = {"matches": [[4, 4, "A", [LABELLED]], [0, 1, "B", []]]}
    now = {"matches": [[0, 1, "B", []]], "scores": [[4, LABELLED]]}
    assert round_scores(earlier) == round_scores(now) == [
        ScoreRecord(4, CallRecord.read(LABELLED))]
    assert round_matches(earlier) == round_matches(now) == [[0, 1, "B", []]]
    assert prepass.label_spreads([earlier], 5) == prepass.label_spreads([now], 5)


def test_an_earlier_versions_planned_round_reads_as_scores() -> None:
    earlier: Any = {"matches": [[3, 3, 1], [5, 5, 0]]}
    assert planned_round(earlier) == ([], [[3, 1], [5, 0]])
    assert planned_round({"matches": [[0, 2, 4]], "scores": []}) == ([[0, 2, 4]], [])


def test_the_strategy_says_whether_it_scores_texts_alone() -> None:
    assert [settings.scores_alone for settings in (Pointwise(), Swiss(), Elimination())] == [
        True, False, False]
    assert [scores_alone(name) for name in ("pointwise", "swiss", "elimination", None)] == [
        True, False, False, False]
