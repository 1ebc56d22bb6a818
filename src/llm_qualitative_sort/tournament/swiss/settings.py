"""`Swiss`: the settings of Swiss rounds on Bradley–Terry strengths.

Example:
    >>> Swiss(budget=4000, top_k=10)
    Swiss(budget=4000, top_k=10, stop_when_settled=False, prepass=None, calls_per_match=1)
    >>> Swiss(prepass="pointwise").prepass
    'pointwise'
    >>> Swiss(stop_when_settled=True)
    Traceback (most recent call last):
    ...
    ValueError: stop_when_settled needs top_k: the K whose separation ends the run
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from llm_qualitative_sort.tournament.settings import Spell, StrategySettings, positive_int

# A budget past this is a typo (and would keep a run going for years).
MAX_BUDGET = 10**9
# What a pre-pass can be: every item scored alone once on the default scale, asked
# directly or the inverse question (how far the text is from meeting the criterion).
PREPASSES = ("pointwise", "pointwise-inverse")


@dataclass(frozen=True, kw_only=True)
class Swiss(StrategySettings):
    """Swiss rounds: every item meets a near neighbour in strength, round after round.

    Args:
        budget: The judgements a run may use (paid calls and cache hits); None (default)
            takes what elimination with N=2 and two calls per match would make, 2·(2n−1).
        top_k: Refine the top K with the last part of the budget (None: no refinement).
        stop_when_settled: With `top_k`: stop before the budget once the top K are
            separated from the rest (see `tournament.swiss.settle`).
        prepass: "pointwise": spend n calls of the budget first scoring every item alone
            (the default 1–4 scale, one parallel round); the Swiss rounds then start from
            those scores (see `tournament.swiss.prepass`). "pointwise-inverse": the same,
            asking the inverse question. None (default): no pre-pass.
        calls_per_match: Calls per match: 1, or an even number (half in each order);
            None (default) takes 1, which ranks better per call. The sorter's
            `comparison_rounds` keyword.
    """

    name: ClassVar[str] = "swiss"
    default_calls_per_match: ClassVar[int] = 1
    single_call: ClassVar[bool] = True

    budget: int | None = None
    top_k: int | None = None
    stop_when_settled: bool = False
    prepass: str | None = None
    calls_per_match: int | None = None

    def state(self) -> dict[str, Any]:
        """The flat keys; `prepass` only when there is one (runs without keep their shape)."""
        stored = super().state()
        if stored["prepass"] is None:
            del stored["prepass"]
        return stored

    @classmethod
    def check(cls, values: Mapping[str, Any], *, spell: Spell) -> None:
        """Calls per match, a positive budget and K, a known pre-pass; a settled stop needs a K."""
        super().check(values, spell=spell)
        if values["budget"] is not None:
            positive_int(spell("budget"), values["budget"], MAX_BUDGET)
        if values["top_k"] is not None:
            positive_int(spell("top_k"), values["top_k"])
        stop = values["stop_when_settled"]
        if not isinstance(stop, bool):
            raise TypeError(f"{spell('stop_when_settled')} must be a bool, "
                            f"got {type(stop).__name__}")
        prepass = values["prepass"]
        if prepass is not None and prepass not in PREPASSES:
            raise ValueError(f'{spell("prepass")} must be None, "pointwise" or '
                             f'"pointwise-inverse", got {prepass!r}')
        if stop and values["top_k"] is None:
            raise ValueError(f"{spell('stop_when_settled')} needs {spell('top_k')}: "
                             "the K whose separation ends the run")
