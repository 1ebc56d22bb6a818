"""`Swiss`: the settings of Swiss rounds on Bradley–Terry strengths.

Example:
    >>> Swiss(budget=4000, top_k=10)
    Swiss(comparison_rounds=1, ties=False, verdicts='hard', budget=4000, budget_tokens=None, \
top_k=10, stop_when_settled=False, prepass=None, group_size=2, pairing='neighbours')
    >>> Swiss(prepass="pointwise").prepass
    'pointwise'
    >>> Swiss(stop_when_settled=True)
    Traceback (most recent call last):
    ...
    llm_qualitative_sort.errors.InputError: stop_when_settled needs top_k: the K whose \
separation ends the run
"""

from __future__ import annotations

from typing import ClassVar, Literal, Self

from pydantic import Field, model_validator

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers.questions import RANK_SIZES
from llm_qualitative_sort.tournament.settings import CallsPerMatch, PairwiseSettings

# A budget past this is a typo (and would keep a run going for years).
MAX_BUDGET = 10**9
# The same in tokens: a thousand times the calls' bound, about what a call takes.
MAX_BUDGET_TOKENS = 10**12
# What a pre-pass can be: every item scored alone once on the default scale, asked
# directly or the inverse question (how far the text is from meeting the criterion).
PREPASSES = ("pointwise", "pointwise-inverse")


class Swiss(PairwiseSettings):
    """Swiss rounds: every item meets a near neighbour in strength, round after round.

    Attributes:
        budget: The judgements a run may use (paid calls and cache hits); None (default)
            takes what elimination with N=2 and two calls per match would make, 2·(2n−1).
        budget_tokens: The input and output tokens a run may use, beside `budget`; the run
            stops at whichever it reaches first. No round is planned whose calls would be
            expected to take the tokens past it (expected from the mean tokens per call so
            far; before any call, from the texts' mean length: see
            `tournament.swiss.tokens`). None (default): no token budget.
        top_k: Refine the top K with the last part of the budget (None: no refinement).
        stop_when_settled: With `top_k`: stop before the budget once the top K are
            separated from the rest (see `tournament.swiss.settle`).
        prepass: "pointwise": spend n calls of the budget first scoring every item alone
            (the default 1–4 scale, one parallel round); the Swiss rounds then start from
            those scores (see `tournament.swiss.prepass`). "pointwise-inverse": the same,
            asking the inverse question. None (default): no pre-pass.
        pairing: How each round chooses its pairs: "neighbours" (default), every item
            meets its nearest unmet neighbour in strength; "a-optimal", the pairs whose
            verdicts most shrink the strengths' posterior variance (see
            `tournament.swiss.choice`).
        comparison_rounds: Calls per match: 1 (the default, which ranks better per call),
            or an even number (half in each order).
        ties: Let the judge answer that two texts are equally good (see `PairwiseSettings`).
        verdicts: "hard" (default) or "soft" (see `PairwiseSettings`).
        group_size: Texts per call: 2 (default) compares two texts per call; 3 to 8 asks
            each call for the order of that many texts (a ranking call), one call of the
            budget each, every pair its order implies entering the fit (see
            `tournament.swiss.groups`). Needs one call per match (`comparison_rounds=1`).

    Example:
        >>> Swiss(ties=True, verdicts="soft").soft_verdicts
        True
        >>> Swiss(group_size=4).group_size
        4
        >>> Swiss(budget_tokens=2_000_000).budget_tokens
        2000000
    """

    name: ClassVar[str] = "swiss"
    single_call: ClassVar[bool] = True

    strategy: Literal["swiss"] = Field(default="swiss", repr=False)
    comparison_rounds: CallsPerMatch = 1
    budget: int | None = Field(default=None, ge=1, le=MAX_BUDGET, strict=True)
    budget_tokens: int | None = Field(default=None, ge=1, le=MAX_BUDGET_TOKENS, strict=True)
    top_k: int | None = Field(default=None, ge=1, strict=True)
    stop_when_settled: bool = Field(default=False, strict=True)
    prepass: Literal["pointwise", "pointwise-inverse"] | None = None
    group_size: int = Field(default=2, ge=2, le=RANK_SIZES[-1], strict=True)
    pairing: Literal["neighbours", "a-optimal"] = "neighbours"

    @model_validator(mode="after")
    def _settled_needs_k(self) -> Self:
        if self.stop_when_settled and self.top_k is None:
            raise InputError("stop_when_settled needs top_k: the K whose separation ends "
                             "the run")
        return self

    @model_validator(mode="after")
    def _one_call_per_group(self) -> Self:
        if self.group_size > 2 and self.comparison_rounds != 1:
            raise InputError(f"group_size={self.group_size} asks one ranking call per group: "
                             f"comparison_rounds must be 1, got {self.comparison_rounds}")
        return self

    @model_validator(mode="after")
    def _pairs_to_choose(self) -> Self:
        # Ranking calls play groups of neighbours: there are no pairs for A-optimal to pick.
        if self.group_size > 2 and self.pairing != "neighbours":
            raise InputError(f"pairing={self.pairing!r} chooses pairs: with "
                             f"group_size={self.group_size} the rounds are ranking calls of "
                             "neighbours; leave pairing at 'neighbours'")
        return self
