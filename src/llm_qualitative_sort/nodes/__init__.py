"""The graph's nodes, one module each; thin adapters over the strategy in `tournament`."""

from llm_qualitative_sort.nodes.comparison import compare
from llm_qualitative_sort.nodes.pairing import pair
from llm_qualitative_sort.nodes.prepare import prepare
from llm_qualitative_sort.nodes.ranking import rank
from llm_qualitative_sort.nodes.update import update

__all__ = ["compare", "pair", "prepare", "rank", "update"]
