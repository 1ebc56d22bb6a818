"""Tournament strategies: pure rules that decide the matches, read results, stop and rank.

`base.py` is the seam (`Strategy`) and `settings.py` the base of every strategy's settings
(`StrategySettings`, a frozen pydantic model); each strategy is a subpackage beside them,
with its settings model and its `Strategy` — `elimination/` (`Elimination`:
multi-elimination by N losses, the default), `swiss/` (`Swiss`: Swiss rounds on
Bradley–Terry strengths) and `pointwise/` (`Pointwise`: each text scored alone) —
registered in `registry.py`; `match.py` holds what every strategy shares: the presentation
orders of a match's calls and its verdict. Plain functions on plain data
(items are indices), with no graph and no LLM, so the rules can be tested on their own.
"""

from llm_qualitative_sort.tournament.base import (
    Note,
    PlannedGroup,
    PlannedMatch,
    PlannedScore,
    RoundPlan,
    Standing,
    Strategy,
    Update,
)
from llm_qualitative_sort.tournament.elimination import (
    BracketChange,
    Elimination,
    EliminationStrategy,
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
from llm_qualitative_sort.tournament.pointwise import Pointwise, PointwiseStrategy
from llm_qualitative_sort.tournament.registry import (
    STRATEGIES,
    StrategyChoice,
    parse_settings,
    scores_alone,
    setting_names,
    settings_class,
    settings_from_state,
    shown_settings,
    strategy_class,
    strategy_for,
)
from llm_qualitative_sort.tournament.settings import PairwiseSettings, StrategySettings
from llm_qualitative_sort.tournament.swiss import Swiss, SwissStrategy

__all__ = [
    "STRATEGIES",
    "BracketChange",
    "Elimination",
    "EliminationStrategy",
    "Note",
    "PairwiseSettings",
    "Pairing",
    "Pointwise",
    "PointwiseStrategy",
    "PlannedGroup",
    "PlannedMatch",
    "PlannedScore",
    "RoundPlan",
    "Standing",
    "Strategy",
    "StrategyChoice",
    "StrategySettings",
    "Swiss",
    "SwissStrategy",
    "Update",
    "active_players",
    "apply_round",
    "competition_ranks",
    "final_ranks",
    "match_winner",
    "pair_round",
    "parse_settings",
    "presentation_orders",
    "remaining_match_bound",
    "round_rng",
    "setting_names",
    "settings_class",
    "settings_from_state",
    "scores_alone",
    "shown_settings",
    "strategy_class",
    "strategy_for",
]
