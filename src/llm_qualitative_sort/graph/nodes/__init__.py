"""The graph's nodes, one module each; thin adapters over the strategy in `tournament`."""

from llm_qualitative_sort.graph.nodes.comparison import compare
from llm_qualitative_sort.graph.nodes.pairing import pair
from llm_qualitative_sort.graph.nodes.prepare import prepare
from llm_qualitative_sort.graph.nodes.ranking import rank
from llm_qualitative_sort.graph.nodes.update import update

__all__ = ["compare", "pair", "prepare", "rank", "update"]
