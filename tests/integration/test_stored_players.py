"""The stored matches of a run name each player by one int object, whatever the round.

An index above 256 is a new int object each time it is computed, and every round's pairing
computes the indices anew: without a table kept for the run, each stored match held two
ints of its own (5 MB of a 200,000-call run's history).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort import MockLLMProvider
from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.graph.nodes.comparison import compare
from llm_qualitative_sort.graph.nodes.pairing import pair
from llm_qualitative_sort.graph.nodes.prepare import prepare
from llm_qualitative_sort.graph.nodes.update import update
from llm_qualitative_sort.stores.sqlite import SqliteJournal

ITEMS = [f"text number {n}" for n in range(600)]


async def test_every_round_names_a_player_by_the_same_int() -> None:
    state: Any = {"items": ITEMS, "criteria": "larger", "seed": 2, "elimination_count": 2}
    state |= await prepare(state)
    state["history"] = []
    context = TournamentContext(provider=MockLLMProvider(seed=1), run_id="players",
                                journal=SqliteJournal(), progress=False)
    runtime = Runtime(context=context)
    for _ in range(3):
        state |= await pair(state)
        played = await compare(state, runtime)
        state["history"] = state["history"] + played["history"]
        state |= await update(state, runtime)
    players = context.players
    named = [player for entry in state["history"] for match in entry["matches"]
             for player in match[:2]]
    assert len(named) > 1000 and len(players) == len(ITEMS)
    assert all(player is players[player] for player in named)
