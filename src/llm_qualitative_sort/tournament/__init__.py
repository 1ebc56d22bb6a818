"""Pure tournament rules: pairing, bracket reassignment, match verdicts and ranking.

Plain functions on plain data (items are indices), with no graph and no LLM, so that the
rules can be tested exhaustively on their own.
"""

from llm_qualitative_sort.tournament.brackets import (
    BracketChange,
    active_players,
    apply_round,
    remaining_match_bound,
)
from llm_qualitative_sort.tournament.match import match_winner, presentation_orders
from llm_qualitative_sort.tournament.pairing import Pairing, pair_round, round_rng
from llm_qualitative_sort.tournament.ranking import competition_ranks, final_ranks

__all__ = [
    "BracketChange",
    "Pairing",
    "active_players",
    "apply_round",
    "competition_ranks",
    "final_ranks",
    "match_winner",
    "pair_round",
    "presentation_orders",
    "remaining_match_bound",
    "round_rng",
]
