"""Public result and event types.

Names and fields follow the specification; extra fields have defaults so that code written
against the specification keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from llm_qualitative_sort.audit import (
    Calibration,
    JudgeAgreement,
    JudgeAudit,
    OrderConsistency,
    PositionBias,
)

if TYPE_CHECKING:
    from llm_qualitative_sort.results.rating import Rating
    from llm_qualitative_sort.scoring import ItemScore

Side = Literal["A", "B"]
# A call's verdict: a side, or "tie" (both equally good) in a run that allows ties.
Verdict = Literal["A", "B", "tie"]
# The largest token count a journal, cache or checkpoint can store (a signed 64-bit integer).
TOKENS_LIMIT = 2**63 - 1
Order = Literal["AB", "BA"]
TIE: Verdict = "tie"
_VERDICTS = ("A", "B", TIE)


@dataclass(frozen=True)
class ComparisonResult:
    """What a provider answered for one comparison call.

    `winner` is stated in the terms of the call: "A" is the text that was shown first.
    "tie" says both meet the criterion equally well; it counts only in a run that allows
    ties (`ties=True`), elsewhere the engine records the call as giving no verdict.
    `None` means the call gave no usable verdict (unparseable or refused answer).
    `probability` is the judge's own probability that the first-shown text wins (a tie
    counting half), read from the log-probabilities of its verdict token when the model
    returned them (see `providers.logprobs`); None when it did not: a hard verdict.

    Example:
        >>> ComparisonResult(winner="A", reasoning="A cites evidence.").winner
        'A'
    """

    winner: Verdict | None
    reasoning: str
    raw_response: dict[str, Any] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    probability: float | None = None

    def __post_init__(self) -> None:
        # The boundary where a provider's answer enters the tournament: a verdict that is
        # not exactly "A", "B", "tie" or None must never be read as a win.
        problem = answer_problem(self)
        if problem:
            raise InvalidAnswerError(f"invalid ComparisonResult: {problem}")


class InvalidAnswerError(ValueError):
    """A provider answered with a `ComparisonResult` whose fields are not valid."""


def answer_problem(result: Any) -> str:
    """What is wrong with a provider's answer, or "" when it can enter the tournament."""
    # Every answer is checked twice (when built, and by the judge): the common answer, a
    # plain `ComparisonResult` with a hard verdict, passes on exact type checks alone.
    if (
        type(result) is ComparisonResult
        and result.probability is None
        and type(result.reasoning) is str
        and type(result.raw_response) is dict
        and type(result.input_tokens) is int
        and type(result.output_tokens) is int
        and 0 <= result.input_tokens <= TOKENS_LIMIT
        and 0 <= result.output_tokens <= TOKENS_LIMIT
        and (result.winner is None or result.winner in _VERDICTS)
    ):
        return ""
    if not isinstance(result, ComparisonResult):
        return f"expected a ComparisonResult, got {type(result).__name__}"
    if result.winner not in ("A", "B", TIE, None):
        return f'winner must be "A", "B", "tie" or None, got {result.winner!r}'
    if not isinstance(result.reasoning, str):
        return f"reasoning must be a str, got {type(result.reasoning).__name__}"
    if not isinstance(result.raw_response, dict):
        return f"raw_response must be a dict, got {type(result.raw_response).__name__}"
    for name in ("input_tokens", "output_tokens"):
        value = getattr(result, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"{name} must be an int >= 0, got {value!r}"
        if value > TOKENS_LIMIT:  # no store holds more than a signed 64-bit integer
            return f"{name} must be at most 2**63 - 1, got {value!r}"
    return _probability_problem(result.probability, result.winner)


def _probability_problem(value: Any, winner: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, float | int) or not 0 <= value <= 1:
        return f"probability must be None or a number in [0, 1], got {value!r}"
    if winner is None:
        return "probability must be None when the call gave no verdict"
    return ""


def refused_tie(result: ComparisonResult) -> ComparisonResult:
    """A "tie" answered in a run without ties, as a call that gave no verdict.

    Never a coin flip: the call counts for neither side and shows as failed, with the
    reason in `raw_response["problem"]` like any other unusable answer.
    """
    raw = dict(result.raw_response, problem="answered 'tie', but this run does not allow ties")
    return ComparisonResult(None, result.reasoning, raw, result.input_tokens,
                            result.output_tokens)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One LLM call of a match.

    `winner` is stated in the match's own terms (`MatchResult.item_a` / `item_b`), whatever
    the order shown to the LLM; "tie" (runs with `ties=True`) is half a win for each side;
    `None` means the call gave no verdict and counted for neither.
    `cached` is true when the answer came from the user's cache instead of a paid call;
    `batch` when it was paid for through the provider's batch interface (at its price).
    `judge` names the judge that answered (its `model_identity`) when a `PanelProvider`
    shared the calls; None when the run had one judge. `probability` is the judge's
    probability (from its log-probabilities) that the match's `item_a` wins, in the
    match's terms like `winner`; None for a hard verdict (no log-probabilities).
    """

    order: Order
    winner: Verdict | None
    reasoning: str
    cached: bool
    input_tokens: int = 0
    output_tokens: int = 0
    batch: bool = False
    judge: str | None = None
    probability: float | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match: `comparison_rounds` calls, half in each presentation order.

    `winner` is None for a draw (equal numbers of calls won, a tied call counting half for
    each side), which costs both items a loss.
    """

    item_a: str
    item_b: str
    winner: Side | None
    rounds: list[RoundResult]
    round_number: int = 0


@dataclass(frozen=True)
class EarlyStop:
    """A Swiss run with `stop_when_settled` that ended before spending its budget.

    `judgements` counts the calls (cache hits included) the run used of its `budget`;
    `expected` is the share of its top `top_k` that the fit expected to be right when it
    stopped (see `tournament.swiss.settle`), None if unknown.
    """

    top_k: int
    judgements: int
    budget: int
    expected: float | None = None

    def describe(self) -> str:
        """The stop in one English sentence, for logs and the command line.

        Example:
            >>> EarlyStop(5, 165, 198, 0.97).describe()
            'stopped early: the top 5 were settled (97 % expected right) after 165 of 198 judgements; 33 were not spent'
        """  # noqa: E501
        sure = "" if self.expected is None else f" ({100 * self.expected:.0f} % expected right)"
        return (f"stopped early: the top {self.top_k} were settled{sure} after "
                f"{self.judgements} of {self.budget} judgements; "
                f"{self.budget - self.judgements} were not spent")


@dataclass(frozen=True)
class Statistics:
    """Counts and timings of a run.

    `total_api_calls` counts calls paid for (cache hits excluded), `batch_calls` those of
    them made through a provider batch; `failed_calls` counts calls that gave no verdict;
    `rounds` counts tournament rounds. `elapsed_time` is the wall time, in seconds, of the
    call that returned this result: after `resume`, the resume alone (for a run that had
    finished, the moment it took to read it again), not the earlier calls' time nor the
    idle time between them. The command line keeps each of its processes' time with the
    run, so its summary and its reports (`sort --out`, `report RUN_ID`) state the run's
    total: the stopped processes' time plus the resume's. `estimated_cost` prices the paid
    tokens when the provider was given prices per million tokens (batch calls at the batch
    price), else None (for a panel, the sum of its judges' costs when each judge that was
    paid has prices).

    The audit (see `llm_qualitative_sort.audit` and the documentation's "The audit"
    page): `position_bias` is the judges' estimated lean toward the first-shown text,
    as a probability shift with its 95 % interval; `order_consistency` counts the AB/BA
    pairs whose two verdicts disagreed; `judges` holds each judge's calls, failures,
    tokens, cost, position bias and order consistency (one entry for a single provider);
    `agreement` compares every two judges of a panel on the prompts both answered;
    `tied_items` counts the items that share their rank, `largest_tie` the largest tied
    block. `tied_calls` counts the calls answered "tie" (runs with `ties=True`); a tied
    call is not a failed one. A `Statistics` built by hand has none of them.

    `early_stop` says why a Swiss run with `stop_when_settled` ended before its budget
    (None for every other run). `calibration` reports the judge's soft verdicts: the
    share of calls that carried a probability and how well those probabilities matched
    the swapped calls (None when no call carried one).

    `rate_limited` counts the requests the provider refused for its rate limit (HTTP 429)
    and `rate_wait` the seconds the judges' calls were held for it (the pauses the server
    asked for, and the holds when an answer said nothing remained), each judge counted
    once however many of its calls waited; like `elapsed_time`, both are the returning
    call's own (after `resume`, the resume's). A 429 is not a failed call.
    """

    total_matches: int
    total_api_calls: int
    cache_hits: int
    elapsed_time: float
    failed_calls: int = 0
    draws: int = 0
    rounds: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_cost: float | None = None
    batch_calls: int = 0
    position_bias: PositionBias | None = None
    order_consistency: OrderConsistency | None = None
    judges: tuple[JudgeAudit, ...] = ()
    agreement: tuple[JudgeAgreement, ...] = ()
    tied_items: int = 0
    largest_tie: int = 0
    early_stop: EarlyStop | None = None
    tied_calls: int = 0
    calibration: Calibration | None = None
    rate_limited: int = 0
    rate_wait: float = 0.0


@dataclass(frozen=True)
class SortResult:
    """The outcome of a sort.

    `rankings` lists `(rank, items)` from the best; items with equal wins share a rank
    (competition ranking: 1, 2, 2, 4). With `ranking="bradley_terry"` they follow `scores`
    instead, and items share a rank only when their scores are equal. `scores` holds each
    item's Bradley–Terry log-strength fitted to every call of the run, with the judge's
    first-position advantage fitted alongside (see `llm_qualitative_sort.bradley_terry`),
    whichever ranking was asked for. `intervals` and `top_k_probability` give each item's
    uncertainty from the same fit (its normal approximation). One fit serves them all; it
    is made on first access, so a run ranked by wins pays for it only if they are read.
    `prompt` names the run's own prompt template and its digest ("NAME sha256:DIGEST", the
    digest of the template and its context); empty for the default prompt. A pointwise run
    (`strategy="pointwise"`) holds its items' scores in `pointwise`; its `scores` are
    those (0–1), its intervals span the repetitions' standard error.
    """

    rankings: list[tuple[int, list[str]]]
    match_history: list[MatchResult]
    statistics: Statistics
    run_id: str = ""
    prompt: str = ""
    # "soft": the fit behind `scores` read each call's probability where it had one.
    verdicts: str = "hard"
    # A pointwise run: every item's score, labels, reasons and label distribution (its
    # `match_history` is empty, and `scores` are these scores, 0–1).
    pointwise: tuple[ItemScore, ...] = ()

    @cached_property
    def scores(self) -> dict[str, float]:
        """Bradley–Terry log-strength of every item (mean 0), from the same calls."""
        return self._rating.scores()

    @cached_property
    def intervals(self) -> dict[str, tuple[float, float]]:
        """The 95 % interval `(low, high)` of every item's score.

        Wald intervals from the fit's observed information; how often they cover the
        truth on known judges is measured in the documentation (Benchmarks, Accuracy).
        """
        return self._rating.intervals()

    def top_k_probability(self, k: int = 10) -> dict[str, float]:
        """P(item is among the k strongest) for every item (they sum to k).

        From 2000 joint draws of the fit's normal approximation (500 above 2000 items),
        seeded, so the same result gives the same figures.

        Raises:
            ValueError: k outside 1..(number of items).
        """
        if k not in self._top_k:
            self._top_k[k] = self._rating.top_k_probability(k)
        return dict(self._top_k[k])

    @cached_property
    def _top_k(self) -> dict[int, dict[str, float]]:
        return {}

    @cached_property
    def _rating(self) -> Rating:
        # Imported here, lazily: the fit loads NumPy and SciPy, which a result whose scores
        # are never read (and `import llm_qualitative_sort.models`) should not pay for.
        from llm_qualitative_sort.results.rating import Rating

        return Rating([item for _, group in self.rankings for item in group], self.match_history,
                      soft=self.verdicts == "soft")


class EventType(StrEnum):
    """Kinds of progress events.

    BRACKET_CHANGE is elimination's (an item took a loss); STANDINGS is Swiss's, once per
    round after the strengths are refitted (the current top items, the judgements used).
    BATCH reports a provider batch in batch mode (submitted, then at every status check):
    its `completed` / `total` count the batch's requests, not matches, and its data holds
    the batch id, the provider's state, and `answered` (None while the provider does not
    count) and `failed`.
    RATE_LIMIT says that a judge's calls wait for the provider's rate limit ("waiting 4 s
    for the rate limit, 12 calls/s"): its data holds the `judge`, the `seconds` of the
    pause, the `rate` (calls per second) the judge goes on at, and `limited`, the 429s
    that judge has met so far; its `completed` and `total` are 0 (it counts no match).
    """

    MATCH_START = "match_start"
    MATCH_END = "match_end"
    ROUND_END = "round_end"
    BRACKET_CHANGE = "bracket_change"
    STANDINGS = "standings"
    BATCH = "batch"
    RATE_LIMIT = "rate_limit"


@dataclass(frozen=True)
class ProgressEvent:
    """A progress notification.

    `completed` counts finished matches; `total` is an upper bound on the number of
    matches of the whole run (N·n−1 at the start, tightened as losses accumulate), so
    `completed <= total` always and the last event has them equal.
    """

    type: EventType
    message: str
    completed: int
    total: int
    data: dict[str, Any] = field(default_factory=dict)
