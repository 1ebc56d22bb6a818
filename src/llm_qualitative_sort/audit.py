"""How far to trust a run's judges: the audit figures that `Statistics` carries.

Every run has them, whatever its strategy and provider; a single provider is a panel of one.
A run checked against people's labels also carries how far its judge agrees with them
(`Agreement`, in `SortResult.agreement`; computed by `results.agreement`).
What each figure means, and what to do about a bad one, is in the documentation ("The
audit" page).

Example:
    >>> consistency = OrderConsistency(pairs=200, disagreements=46)
    >>> consistency.share
    0.23
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

PositionMethod = Literal["swapped_pairs", "model"]
EffectMethod = Literal["structured", "two_stage"]
# The coverage of the intervals of a judge's agreement with people, unless asked otherwise.
AGREEMENT_LEVEL = 0.95


@dataclass(frozen=True)
class PositionBias:
    """How much a judge favours the text it is shown first.

    Attributes:
        shift: For two equally good texts, how much more often than half the time the
            first-shown one wins: σ(h) − ½, between −½ and ½ (0.08 = it wins 58 % of such
            calls). Negative when the judge favours the second-shown text.
        low: Lower end of the 95 % interval of `shift`.
        high: Upper end of the 95 % interval of `shift`.
        first_shown_share: Share of the calls with a verdict that the first-shown text won,
            as counted, whatever the texts' merits (the plain figure; with both orders in
            every match, 0.5 means no lean).
        calls: Calls with a verdict.
        method: "swapped_pairs": from the AB/BA pairs whose two verdicts disagreed, by the
            exact conditional likelihood of the Bradley–Terry model (the texts' strengths
            cancel out); "model": fitted with the strengths, for runs of single calls.
        evidence: What the estimate rests on: the pairs that disagreed ("swapped_pairs"),
            or the calls ("model").
    """

    shift: float
    low: float
    high: float
    first_shown_share: float
    calls: int
    method: PositionMethod
    evidence: int


@dataclass(frozen=True)
class CovariateEffect:
    """How much a judge's verdicts follow a per-item covariate (a text's length, say).

    In logits per standard deviation of the covariate over the run's items: "+0.31" says
    that of two texts otherwise equal, the one a standard deviation longer wins with
    probability σ(0.31) = 58 %. For length, the covariate is the log length in characters.
    It describes, it does not judge: people may prefer longer texts too, for good reasons.

    Attributes:
        covariate: "length", or the name of the item field.
        beta: The estimate.
        standard_error: Its standard error.
        low: Lower end of its 95 % interval.
        high: Upper end.
        method: "structured": fitted inside the Bradley–Terry model (strength = β·covariate
            + residual); "two_stage": the fitted strengths regressed on the covariate, for
            runs too large for the structured fit.
    """

    covariate: str
    beta: float
    standard_error: float
    low: float
    high: float
    method: EffectMethod = "structured"


@dataclass(frozen=True)
class AdjustedRanking:
    """The order with the judge's preference for the covariates taken out.

    Attributes:
        covariates: The covariates taken out, as asked.
        effects: The judge's preference for each, fitted together.
        rankings: `(rank, items)` best first, by `scores`.
        scores: Each item's strength less its covariates' part (log-strength, mean 0).
        intervals: Their 95 % intervals.
    """

    covariates: tuple[str, ...]
    effects: tuple[CovariateEffect, ...]
    rankings: list[tuple[int, list[str]]]
    scores: dict[str, float]
    intervals: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class SlotShare:
    """How often a ranking call's judge put first the text shown in one slot.

    With no lean toward any slot, each of the k slots holds the first place in 1/k of the
    calls (the texts are shown in a random order); a slot well above that is favoured for
    where it is shown. Texts tied for first share the place.

    Attributes:
        slot: The slot, 1 for the text shown first.
        size: Texts per call (k).
        first: First places the text in this slot took (a tie for first split evenly).
        calls: Ranking calls of this size that gave an order.
        share: `first / calls`.
        low: Lower end of the 95 % (Wilson) interval of `share`.
        high: Upper end of it.
    """

    slot: int
    size: int
    first: float
    calls: int
    share: float
    low: float
    high: float

    @property
    def expected(self) -> float:
        """The share without any lean: 1/k."""
        return 1.0 / self.size


@dataclass(frozen=True)
class OrderConsistency:
    """How often swapping the order of two texts changed the judge's verdict.

    A pair is a match's "AB" call and its "BA" call, answered by one judge, both with a
    verdict. When they disagree, each order's first-shown (or each order's second-shown)
    text won: the verdict followed the position, not the texts. With two calls per match
    each such pair is a 1–1 draw, which costs both items a loss in elimination.

    Attributes:
        pairs: AB/BA pairs with two verdicts.
        disagreements: Pairs whose two verdicts named different winners.
        share: disagreements / pairs, or None without pairs (one call per match).
    """

    pairs: int
    disagreements: int
    share: float | None = None

    def __post_init__(self) -> None:
        if self.share is None and self.pairs:
            object.__setattr__(self, "share", round(self.disagreements / self.pairs, 6))


@dataclass(frozen=True)
class JudgeAudit:
    """One judge's part in a run.

    Attributes:
        judge: The judge's `model_identity`.
        calls: Calls it answered, cache hits included.
        paid_calls: Of those, the calls paid for.
        failed_calls: Calls without a verdict (refused or unparseable after asking again).
        input_tokens: Input tokens of its paid calls.
        output_tokens: Output tokens of its paid calls.
        estimated_cost: Their price, when the judge was given prices, else None.
        position_bias: Its lean toward the first-shown text, or None without verdicts.
        order_consistency: How often its two orders of a pair disagreed.
        tied_calls: Calls it answered "tie" (runs with `ties=True`); see `tie_rate`.
    """

    judge: str
    calls: int
    paid_calls: int
    failed_calls: int
    input_tokens: int
    output_tokens: int
    estimated_cost: float | None
    position_bias: PositionBias | None
    order_consistency: OrderConsistency
    tied_calls: int = 0

    @property
    def tie_rate(self) -> float | None:
        """Share of its calls with a verdict that were ties; None without verdicts."""
        verdicts = self.calls - self.failed_calls
        return round(self.tied_calls / verdicts, 6) if verdicts else None


@dataclass(frozen=True)
class JudgeAgreement:
    """How often two judges of a panel gave the same verdict on the same prompt.

    A prompt is two texts in one order; the panel makes such shared prompts when a pair is
    judged by both (with `comparison_rounds = 2 × judges`, every match).

    Attributes:
        judges: The two judges' identities.
        prompts: Prompts both answered with a verdict.
        agreeing: Of those, the prompts where they picked the same text.
        share: agreeing / prompts, or None without shared prompts.
        kappa: Cohen's κ: agreement beyond what the two judges' own rates of picking the
            first-shown text would give by chance (1 perfect, 0 chance level); None
            without shared prompts or when chance alone explains every verdict.
    """

    judges: tuple[str, str]
    prompts: int
    agreeing: int
    share: float | None
    kappa: float | None


@dataclass(frozen=True)
class ReliabilityBin:
    """Calls whose stated probability lies in [low, high): its mean and how often it held."""

    low: float
    high: float
    calls: int
    stated: float
    observed: float


@dataclass(frozen=True)
class Calibration:
    """The judge's soft verdicts (probabilities from its log-probabilities) in a run.

    Attributes:
        soft_calls: Calls with a verdict that carried a probability.
        share: soft_calls / calls with a verdict (the rest were hard verdicts).
        pairs: Soft calls scored against the other order of their pair (see
            `results.calibration`): did the text shown first also win when shown second?
        brier: Mean squared gap between the stated probability and that outcome (0 is
            perfect; 0.25 is a constant ½); None without swapped pairs.
        bins: The reliability table: stated probability against the observed share.
    """

    soft_calls: int
    share: float
    pairs: int
    brier: float | None
    bins: tuple[ReliabilityBin, ...] = ()


@dataclass(frozen=True)
class LabelledCall:
    """One judge call on a pair a person labelled, in the person's terms.

    Attributes:
        a: The labelled pair's first item (an index into the run's items).
        b: Its second item.
        human: The person's verdict: "A" (a is better), "B" or "tie".
        judge: The judge's verdict in the same terms, or None for a call without one.
        a_shown_first: Whether the judge was shown `a` first.
        reason: The judge's reasoning (listed with the disagreements).
    """

    a: int
    b: int
    human: str
    judge: str | None
    a_shown_first: bool
    reason: str = ""


@dataclass(frozen=True)
class Interval:
    """A point estimate and its bootstrap interval (None where a figure is undefined)."""

    value: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Agreement:
    """The judge against people on the labelled pairs.

    Attributes:
        compared: Judge calls with a verdict on a labelled pair.
        agreed: Of those, the calls whose verdict equals the person's.
        no_verdict: Calls on labelled pairs that gave no verdict.
        pairs: Distinct labelled pairs.
        agreement_interval: The agreement with its interval.
        kappa: Cohen's κ over A / tie / B, with its interval.
        kappa_by_order: κ over the calls that showed the pair's first item first
            ("a first") and second ("a second").
        confusion: Counts, rows the person's label and columns the judge's, in
            `results.agreement.LABELS` order (A, tie, B).
        spearman: ρ between the judge's and the people's order of the labelled items
            (None when not given strengths for both).
        disagreements: The calls whose verdict differs from the person's.
        level: The intervals' coverage.
        kendall: Kendall's τ-b between the judge's order and people's scores, where the
            people gave scores (None otherwise).
        scale_labels: A pointwise run's labels, when people's scores are on its scale.
        label_confusion: Then, counts of (person's score, judge's label) over the judge's
            calls on scored items, rows and columns in `scale_labels` order.
    """

    compared: int
    agreed: int
    no_verdict: int
    pairs: int
    agreement_interval: Interval
    kappa: Interval
    kappa_by_order: Mapping[str, Interval]
    confusion: tuple[tuple[int, int, int], ...]
    spearman: Interval | None = None
    disagreements: tuple[LabelledCall, ...] = ()
    level: float = AGREEMENT_LEVEL
    kendall: float | None = None
    scale_labels: tuple[int, ...] = ()
    label_confusion: tuple[tuple[int, ...], ...] | None = None

    @property
    def agreement(self) -> float | None:
        """The share of the judge's verdicts that equal the person's (None: no verdict)."""
        return self.agreed / self.compared if self.compared else None
