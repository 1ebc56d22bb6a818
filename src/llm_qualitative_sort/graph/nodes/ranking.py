"""Ranking node: the strategy's final ranks; equal ranks share a place.

Elimination ranks the winner first, then by wins; Swiss ranks by Bradley–Terry strength.
An input's `ranking="bradley_terry"` ranks any run by the strengths fitted to its calls; an
input with people's labels (`human`) and no `ranking`, by those strengths anchored by them.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from llm_qualitative_sort.bradley_terry import rank_by_score
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.rating.result import Rating
from llm_qualitative_sort.results.from_state import counts, history_matches
from llm_qualitative_sort.results.labelled import anchored_scores, state_labels
from llm_qualitative_sort.tournament.swiss.groups import extra_calls


async def rank(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Rank every item; also give the run's counts and id (the output Studio shows)."""
    items = state["items"]
    strategy = run_strategy(state)
    history = state.get("history", [])
    labels = state_labels(state.get("human"))
    anchored = labels is not None and state.get("ranking") is None \
        and not strategy.settings.scores_alone \
        and (runtime.context or TournamentContext()).anchor
    if anchored or state.get("ranking") == "bradley_terry":  # asked for as by Studio
        # The strengths the sorter's `ranking="bradley_terry"` ranks by, from the same calls.
        extra, weight = extra_calls(history, len(items),
                                    getattr(strategy.settings, "prepass", None))
        rating = Rating(items, history_matches(items, history), extra=extra,
                        extra_weight=weight)
        scores = rating.scores()
        if labels is not None and anchored:  # people's labels, and no order named
            scores = anchored_scores(labels, rating)
        rankings = rank_by_score(scores)
    else:
        ranks = strategy.rank(state["standing"], history)
        rankings = [(r, [items[i] for i in players]) for r, players in ranks]
    stop = strategy.early_stop(state["standing"])
    return {
        "rankings": rankings,
        "early_stop": None if stop is None else asdict(stop),
        "statistics": counts(state.get("history", []),
                             scores_alone=strategy.settings.scores_alone),
        "run_id": str(get_config().get("configurable", {}).get("thread_id", "")),
    }
