"""`Elimination`: the settings of the multi-elimination tournament.

Example:
    >>> Elimination()
    Elimination(losses=2, calls_per_match=2)
    >>> Elimination(losses=1).state()
    {'strategy': 'elimination', 'elimination_count': 1, 'comparison_rounds': 2}
    >>> Elimination(losses=0)
    Traceback (most recent call last):
    ...
    ValueError: losses must be >= 1, got 0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from llm_qualitative_sort.tournament.settings import Spell, StrategySettings, positive_int

# More lives than this is never what anyone meant (and keeps a run finite).
MAX_LOSSES = 1000


@dataclass(frozen=True, kw_only=True)
class Elimination(StrategySettings):
    """Multi-elimination: players meet inside loss brackets; `losses` losses eliminate.

    Args:
        losses: Losses that eliminate a player (N): 1 is single elimination, 2 (the
            default) double elimination. The sorter's keyword and the `--elimination-count`
            flag.
        calls_per_match: Calls per match, an even number, half in each presentation order;
            None (default) takes 2. The sorter's `comparison_rounds` keyword.
    """

    name: ClassVar[str] = "elimination"
    KEYWORDS: ClassVar[Mapping[str, str]] = {
        "losses": "elimination_count", "calls_per_match": "comparison_rounds"}

    losses: int = 2
    calls_per_match: int | None = None

    @classmethod
    def check(cls, values: Mapping[str, Any], *, spell: Spell) -> None:
        """`losses` from 1 to 1000, then the calls per match."""
        positive_int(spell("losses"), values["losses"], MAX_LOSSES)
        super().check(values, spell=spell)
