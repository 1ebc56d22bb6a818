"""Pointwise scoring: every item scored alone on a labelled scale, in one parallel round."""

from llm_qualitative_sort.tournament.pointwise.ranking import item_scores, score_ranks
from llm_qualitative_sort.tournament.pointwise.settings import Pointwise
from llm_qualitative_sort.tournament.pointwise.strategy import PointwiseStrategy

__all__ = ["Pointwise", "PointwiseStrategy", "item_scores", "score_ranks"]
