"""How many rounds a run takes: in batch mode each round is one batch turnaround.

The number of rounds depends on the verdicts, so it is simulated: the strategy plays
without any LLM, every match won by the stronger of two hidden random strengths (a ranking
call ordered by them). Without
draws this is an upper bound in practice: a draw costs both players a life, so noisy
judges end elimination one to three rounds sooner (measured with the mock: see the batch
mode guide). Pure and fast: 1000 items with N=10 take about half a second.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort.tournament import StrategySettings, presentation_orders, strategy_for
from llm_qualitative_sort.tournament.records import CallRecord, ScoreRecord
from llm_qualitative_sort.verdicts import Side


def simulated_rounds(settings: StrategySettings, n_items: int, seed: int = 0,
                     texts: Sequence[str] | None = None, criteria: str = "") -> int:
    """The rounds of a run without draws (0 for fewer than two items).

    `texts` and `criteria` size the calls for a token budget (each simulated call counts
    at the estimate from them); without them, empty texts.

    Example:
        >>> from llm_qualitative_sort.tournament import Elimination
        >>> simulated_rounds(Elimination(elimination_count=1), 16)
        4
        >>> from llm_qualitative_sort.tournament import Swiss
        >>> simulated_rounds(Swiss(group_size=4, budget=40), 16)
        10
    """
    if n_items < 2:
        return 0
    strategy = strategy_for(settings, n_items, seed)
    strength = random.Random(seed).sample(range(n_items), n_items)
    orders = presentation_orders(settings.calls)
    standing = strategy.opening([""] * n_items if texts is None else texts, criteria)
    history: list[dict[str, Any]] = []
    while not strategy.finished(standing):
        plan = strategy.plan(standing, history, len(history) + 1)
        matches = []
        for match in plan.matches:
            winner: Side = "A" if strength[match.a] > strength[match.b] else "B"
            calls = [CallRecord(order, winner, "", False, 0, 0).stored() for order, _ in orders]
            matches.append([match.a, match.b, winner, calls])
        # A text scored alone: one call, whose label no simulation knows.
        scores = [ScoreRecord(score.item, CallRecord("AB", None, "", False, 0, 0)).stored()
                  for score in plan.scores]
        entry: dict[str, Any] = {"round": len(history) + 1, "matches": matches,
                                 "bye": plan.bye, "scores": scores}
        if plan.groups:  # ranking calls: each orders its group by the hidden strengths
            entry["groups"] = [{"items": list(g.items), "order": [
                [i] for i in sorted(g.items, key=lambda i: -strength[i])]} for g in plan.groups]
        history.append(entry)
        standing = strategy.update(standing, history).standing
    return len(history)
