"""Multi-elimination (N losses eliminate, the default): settings, brackets, pairing, strategy."""

from llm_qualitative_sort.tournament.elimination.brackets import (
    BracketChange,
    active_players,
    apply_match,
    apply_round,
    remaining_match_bound,
)
from llm_qualitative_sort.tournament.elimination.free import pair_free_players
from llm_qualitative_sort.tournament.elimination.pairing import Pairing, pair_round, round_rng
from llm_qualitative_sort.tournament.elimination.ranking import competition_ranks, final_ranks
from llm_qualitative_sort.tournament.elimination.settings import Elimination
from llm_qualitative_sort.tournament.elimination.strategy import EliminationStrategy

__all__ = [
    "BracketChange",
    "Elimination",
    "EliminationStrategy",
    "Pairing",
    "active_players",
    "apply_match",
    "apply_round",
    "competition_ranks",
    "final_ranks",
    "pair_free_players",
    "pair_round",
    "remaining_match_bound",
    "round_rng",
]
