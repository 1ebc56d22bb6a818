"""`Labelled`: the settings of a run that asks exactly the labelled pairs.

Example:
    >>> Labelled(pairs=((0, 1), (2, 1))).pairs
    ((0, 1), (2, 1))
    >>> Labelled(pairs=((0, 0),))
    Traceback (most recent call last):
    ...
    llm_qualitative_sort.errors.InputError: pairs: (0, 0) pairs an item with itself
"""

from __future__ import annotations

from typing import ClassVar, Literal, Self

from pydantic import Field, model_validator

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.tournament.settings import CallsPerMatch, PairwiseSettings


class Labelled(PairwiseSettings):
    """The pairs to ask, each once per presentation order.

    Attributes:
        pairs: `(a, b)` item indices, each pair once (in either orientation).
        comparison_rounds: Calls per pair, an even number (default 2: once in each order).
        ties: Let the judge answer that two texts are equally good.
        verdicts: "hard" (default) or "soft" (see `PairwiseSettings`).
    """

    name: ClassVar[str] = "labelled"
    offered: ClassVar[bool] = False

    strategy: Literal["labelled"] = Field(default="labelled", repr=False)
    comparison_rounds: CallsPerMatch = 2
    pairs: tuple[tuple[int, int], ...] = ()

    @model_validator(mode="after")
    def _distinct_pairs(self) -> Self:
        if not self.pairs:
            raise InputError("pairs: give at least one labelled pair")
        seen: set[frozenset[int]] = set()
        for a, b in self.pairs:
            if a == b:
                raise InputError(f"pairs: {(a, b)} pairs an item with itself")
            if frozenset((a, b)) in seen:
                raise InputError(f"pairs: {(a, b)} is given twice; give each pair once")
            seen.add(frozenset((a, b)))
        return self
