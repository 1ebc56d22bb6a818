"""Labelled pairs: exactly the given pairs, each in both orders, in one round.

Not a ranking strategy: it is what a calibration plays to ask a judge the pairs people
labelled (see `llm_qualitative_sort.judge_choice`), through the same calls, cache and
journal as any run.
"""

from llm_qualitative_sort.tournament.labelled.settings import Labelled
from llm_qualitative_sort.tournament.labelled.strategy import LabelledStrategy

__all__ = ["Labelled", "LabelledStrategy"]
