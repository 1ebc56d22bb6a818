"""Tournament strategies: pure rules that decide the matches, read results, stop and rank.

`base.py` is the seam (`Strategy`); each strategy is a subpackage beside it —
`elimination/` (the specification's multi-elimination, the default) and `swiss/` (Swiss
rounds on Bradley–Terry strengths) — and `match.py` holds what every strategy shares: the
presentation orders of a match's calls and its verdict. Plain functions on plain data
(items are indices), with no graph and no LLM, so the rules can be tested on their own.
"""

from llm_qualitative_sort.tournament.base import (
    Note,
    PlannedMatch,
    RoundPlan,
    Settings,
    Standing,
    Strategy,
    Update,
)
from llm_qualitative_sort.tournament.elimination import (
    BracketChange,
    Elimination,
    Pairing,
    active_players,
    apply_round,
    competition_ranks,
    final_ranks,
    pair_round,
    remaining_match_bound,
    round_rng,
)
from llm_qualitative_sort.tournament.match import match_winner, presentation_orders
from llm_qualitative_sort.tournament.swiss import Swiss

STRATEGIES: dict[str, type[Strategy]] = {"elimination": Elimination, "swiss": Swiss}


def strategy_for(settings: Settings, n_items: int, seed: int) -> Strategy:
    """The strategy that plays `settings` (its name is `settings.strategy`).

    Example:
        >>> strategy_for(Settings(), n_items=8, seed=1).name
        'elimination'
    """
    return STRATEGIES[settings.strategy](settings, n_items, seed)


__all__ = [
    "STRATEGIES",
    "BracketChange",
    "Elimination",
    "Note",
    "Pairing",
    "PlannedMatch",
    "RoundPlan",
    "Settings",
    "Standing",
    "Strategy",
    "Swiss",
    "Update",
    "active_players",
    "apply_round",
    "competition_ranks",
    "final_ranks",
    "match_winner",
    "pair_round",
    "presentation_orders",
    "remaining_match_bound",
    "round_rng",
    "strategy_for",
]
