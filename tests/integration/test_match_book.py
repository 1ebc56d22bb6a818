"""The match book's events: a note's item lists read as texts on both schedules; quiet runs.

The pipelined engine once converted a note's `item` but not its `item_lists` (the indices
stayed indices), unlike the rounds schedule; no pipelined strategy wrote such a note yet,
so the first that did would have sent listeners item numbers instead of texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from langgraph.runtime import Runtime

from llm_qualitative_sort import EventType, MockLLMProvider
from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.graph.nodes import play as play_module
from llm_qualitative_sort.graph.nodes.prepare import prepare
from llm_qualitative_sort.graph.state import run_strategy
from llm_qualitative_sort.stores.sqlite import SqliteJournal
from llm_qualitative_sort.tournament import Note
from llm_qualitative_sort.tournament.elimination.strategy import EliminationStrategy

ITEMS = [f"text number {n}" for n in range(9)]


class _Noting(EliminationStrategy):
    """Elimination that also reports the two players of each match as an item list."""

    def apply_match(self, standing: dict[str, Any], match: Sequence[Any]) -> list[Note]:
        notes = super().apply_match(standing, match)
        return [*notes, Note(EventType.STANDINGS, "played", {"pair": [match[0], match[1]]},
                             item_lists=("pair",))]


async def _play_pipelined(monkeypatch: pytest.MonkeyPatch, listen: bool) -> list[Any]:
    state: Any = {"items": ITEMS, "criteria": "larger", "seed": 2, "schedule": "pipelined"}
    state |= await prepare(state)
    state["history"] = []
    noting = _Noting(run_strategy(state).settings, len(ITEMS), state["rng_seed"])
    monkeypatch.setattr(play_module, "run_strategy", lambda _: noting)
    payloads: list[Any] = []
    context = TournamentContext(provider=MockLLMProvider(seed=1), run_id="notes",
                                journal=SqliteJournal(), progress=listen)
    runtime = Runtime(context=context, stream_writer=payloads.append)
    while state.get("in_flight") or not noting.finished(state["standing"]):
        changes = await play_module.play(state, runtime)
        state |= {k: v for k, v in changes.items() if k != "history"}
    for live in context.live.values():
        live.close()
    return payloads


async def test_a_pipelined_note_names_its_item_lists_as_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payloads = await _play_pipelined(monkeypatch, listen=True)
    pairs = [p["data"]["pair"] for p in payloads if p["event"] == EventType.STANDINGS.value]
    ends = [p for p in payloads if p["event"] == EventType.MATCH_END.value]
    assert len(pairs) == len(ends) > 0
    for pair, end in zip(pairs, ends, strict=True):
        assert pair == [end["data"]["item_a"], end["data"]["item_b"]]


async def test_a_quiet_pipelined_run_builds_only_its_segment_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    payloads = await _play_pipelined(monkeypatch, listen=False)
    assert payloads
    assert {p["event"] for p in payloads} == {EventType.ROUND_END.value}
