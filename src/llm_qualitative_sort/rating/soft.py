"""Soft verdicts: the judge's probability as a fractional outcome of a call.

A call's stored facts may hold `"probability"`: the judge's probability (read from its
log-probabilities) that the match's first item wins. With `verdicts="soft"` the rating fit
takes that probability as the share of the call won, instead of 1, 0 or ½; a call without
one stays a hard verdict. `verdicts="hard"` (the default) ignores it.
"""

from __future__ import annotations

from typing import Any, Literal

from llm_qualitative_sort.errors import InputError

VerdictsMode = Literal["hard", "soft"]
VERDICTS: tuple[VerdictsMode, ...] = ("hard", "soft")


def check_verdicts(value: Any) -> VerdictsMode:
    """`value` if it names a verdicts mode, else a `ValueError` listing them."""
    if value not in VERDICTS:
        raise InputError(f'verdicts must be "hard" or "soft", got {value!r}')
    return value  # type: ignore[no-any-return]


def stored_probability(facts: Any, default: float | None = None) -> float | None:
    """A stored call's soft verdict (its "probability" fact) if it is a number in [0, 1].

    Example:
        >>> stored_probability({"probability": 0.7}), stored_probability({"batch": True})
        (0.7, None)
    """
    value = facts.get("probability") if isinstance(facts, dict) else None
    if isinstance(value, float | int) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return default


def soft_share(hard: float, probability: float | None, a_first: bool, soft: bool) -> float:
    """The share of a call won by the first-shown text.

    `hard` is the verdict's share (1, 0 or ½); `probability` is the judge's probability
    that the match's first item wins. Soft and with a probability: that probability, seen
    from the first-shown text; otherwise the hard share.

    Example:
        >>> soft_share(1.0, 0.8, a_first=False, soft=True), soft_share(1.0, 0.8, False, False)
        (0.19999999999999996, 1.0)
    """
    if not soft or probability is None:
        return hard
    return probability if a_first else 1.0 - probability
