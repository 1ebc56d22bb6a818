"""The graph's nodes, one module each; thin adapters over `llm_qualitative_sort.tournament`."""

from llm_qualitative_sort.nodes.comparison import compare
from llm_qualitative_sort.nodes.pairing import pair
from llm_qualitative_sort.nodes.prepare import prepare
from llm_qualitative_sort.nodes.ranking import rank
from llm_qualitative_sort.nodes.reassignment import reassign

__all__ = ["compare", "pair", "prepare", "rank", "reassign"]
