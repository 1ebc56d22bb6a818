"""`Elimination`: the settings of the multi-elimination tournament.

Example:
    >>> Elimination()
    Elimination(comparison_rounds=2, ties=False, verdicts='hard', elimination_count=2)
    >>> Elimination(elimination_count=1).stored()
    {'strategy': 'elimination', 'comparison_rounds': 2, 'ties': False, 'verdicts': 'hard', \
'elimination_count': 1}
    >>> Elimination(elimination_count=0)
    Traceback (most recent call last):
    ...
    llm_qualitative_sort.errors.InputError: elimination_count must be >= 1, got 0
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from llm_qualitative_sort.tournament.settings import CallsPerMatch, PairwiseSettings

# More lives than this is never what anyone meant (and keeps a run finite).
MAX_LOSSES = 1000


class Elimination(PairwiseSettings):
    """Multi-elimination: players meet inside loss brackets; `elimination_count` losses eliminate.

    Attributes:
        elimination_count: Losses that eliminate a player (N): 1 is single elimination, 2
            (the default) double elimination; at most 1000.
        comparison_rounds: Calls per match, an even number (default 2), half in each
            presentation order.
        ties: Let the judge answer that two texts are equally good (see `PairwiseSettings`).
        verdicts: "hard" (default) or "soft" (see `PairwiseSettings`).

    Example:
        >>> Elimination(elimination_count=1, ties=True).ties
        True
    """

    name: ClassVar[str] = "elimination"

    strategy: Literal["elimination"] = Field(default="elimination", repr=False)
    comparison_rounds: CallsPerMatch = 2
    elimination_count: int = Field(default=2, ge=1, le=MAX_LOSSES, strict=True)
