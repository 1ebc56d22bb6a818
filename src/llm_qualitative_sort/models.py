"""Public result and event types.

Fields added over time have defaults, so that code written against earlier versions keeps
working. A call's answer and the calls and matches a run
records (`ComparisonResult`, `RoundResult`, `MatchResult`, the verdict types) are defined in
`llm_qualitative_sort.verdicts` and imported from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.audit import (
    AdjustedRanking,
    Agreement,
    Calibration,
    CovariateEffect,
    JudgeAgreement,
    JudgeAudit,
    OrderConsistency,
    PositionBias,
    SlotShare,
)

# `verdicts`' names are re-exported (`X as X`): code written against `models` keeps working.
from llm_qualitative_sort.verdicts import TIE as TIE
from llm_qualitative_sort.verdicts import TOKENS_LIMIT as TOKENS_LIMIT
from llm_qualitative_sort.verdicts import ComparisonResult as ComparisonResult
from llm_qualitative_sort.verdicts import InvalidAnswerError as InvalidAnswerError
from llm_qualitative_sort.verdicts import MatchResult as MatchResult
from llm_qualitative_sort.verdicts import Order as Order
from llm_qualitative_sort.verdicts import RankingCall as RankingCall
from llm_qualitative_sort.verdicts import RoundResult as RoundResult
from llm_qualitative_sort.verdicts import Side as Side
from llm_qualitative_sort.verdicts import Verdict as Verdict
from llm_qualitative_sort.verdicts import answer_problem as answer_problem
from llm_qualitative_sort.verdicts import refused_tie as refused_tie

if TYPE_CHECKING:
    from llm_qualitative_sort.rating.result import Rating
    from llm_qualitative_sort.rating.scoring import ItemScore


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
    the swapped calls (None when no call carried one). `slot_bias` holds, for a run of
    ranking calls (Swiss `group_size` > 2), the share of first places the text in each
    shown slot took, with its interval (see `audit.SlotShare`); empty for other runs.
    Ranking calls count in the calls, failures and tokens like any call, once each; so do
    a Swiss pre-pass's calls, each scoring a text alone, which are no matches (not in
    `total_matches` nor `draws`; `SortResult.prepass` holds them).

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
    slot_bias: tuple[SlotShare, ...] = ()


@dataclass(frozen=True, repr=False)
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
    (`strategy="pointwise"`) holds its items' scores in `pointwise`, in the order of
    `rankings` (best first); its `scores` are those (0–1), its intervals span the
    repetitions' standard error. A run checked against people (`sort(items, human=...)`)
    holds in `agreement` how far the judge agrees with their labels (see
    `audit.Agreement`) and in `human` the labels' digest; its `rankings`,
    `scores`, `intervals` and `top_k_probability` are then those of the judge's fit anchored
    by the labels (`order == "anchored"`, with `rank_intervals`), unless the judge's own
    order was asked for (`order == "judge"`); `people_length_preference` is people's own
    preference for longer texts, read from their verdicts, to set beside the judge's.

    `strategy` names the strategy that played the run ("elimination", "swiss",
    "pointwise"), so a report written from the result alone draws what fits it (a Swiss run
    has no loss brackets).

    A Swiss run with a pre-pass (`Swiss(prepass="pointwise")`) holds in `prepass` the
    score each text got alone, in the records a pointwise run's `pointwise` holds (its
    label, reason and label distribution), in the order the texts were asked. These calls
    are no matches: `match_history` and `statistics.total_matches` hold the matches of two
    texts, while the calls, failures, tokens and cost count the pre-pass's calls too.

    `length_preference` is the audit's estimate of how much the judge favours longer texts
    (fitted on first access, like `scores`). `adjusted`, when the run was asked to
    `adjust` for covariates, is the order with the judge's preference for them taken out,
    beside `rankings`, never in its place.
    """

    rankings: list[tuple[int, list[str]]]
    match_history: list[MatchResult]
    statistics: Statistics
    run_id: str = ""
    prompt: str = ""
    # "soft": the fit behind `scores` read each call's probability where it had one.
    verdicts: str = "hard"
    # A pointwise run: every item's score, labels, reasons and label distribution, best
    # first (its `match_history` is empty, and `scores` are these scores, 0–1).
    pointwise: tuple[ItemScore, ...] = ()
    # Checked against people (`sort(items, human=...)`): how far the judge agrees with their
    # labels, and the labels' digest ("sha256:..."); None and "" for a run without labels.
    agreement: Agreement | None = None
    human: str = ""
    # Which order `rankings`, `scores` and `intervals` hold: "judge" (the judge's calls
    # alone) or "anchored" (the judge's fit anchored by people's labels).
    order: str = "judge"
    # An anchored order's 90 % interval of each item's position (1 = best); else None.
    rank_intervals: dict[str, tuple[int, int]] | None = None
    # People's own preference for longer texts, from their verdicts (None without any).
    people_length_preference: CovariateEffect | None = None
    adjusted: AdjustedRanking | None = None
    # A Swiss run with `group_size` > 2: every ranking call, in the order made.
    ranking_calls: tuple[RankingCall, ...] = ()
    # A Swiss run with a pre-pass: each text's score from its call alone (empty without one).
    prepass: tuple[ItemScore, ...] = ()
    # The strategy that played the run ("elimination", "swiss", "pointwise"); "" for a
    # result built by hand.
    strategy: str = ""

    def __repr__(self) -> str:
        """A summary, not every call: a run's history can hold hundreds of thousands.

        Example:
            >>> SortResult([(1, ["b"]), (2, ["a"])], [], Statistics(1, 2, 0, 0.1), "r1")
            SortResult(run_id='r1', 2 items in 2 ranks, 1 match, 2 calls; best first: 'b', 'a')
        """
        def count(number: int, noun: str, plural: str = "s") -> str:
            return f"{number} {noun}{'' if number == 1 else plural}"

        order = [item for _, group in self.rankings for item in group]
        shown = ", ".join(repr(item if len(item) <= 40 else item[:39] + "…")
                          for item in order[:3])
        more = ", …" if len(order) > 3 else ""
        played = (f"{len(self.pointwise)} scored alone" if self.pointwise else
                  count(self.statistics.total_matches, "match", "es"))
        return (f"SortResult(run_id={self.run_id!r}, {count(len(order), 'item')} in "
                f"{count(len(self.rankings), 'rank')}, {played}, "
                f"{count(self.statistics.total_api_calls, 'call')}; best first: {shown}{more})")

    @property
    def tokens_per_text(self) -> float:
        """The paid calls' input and output tokens per item ranked (0.0 for no item).

        What the run cost per text, in the unit a token budget (`Swiss(budget_tokens=...)`)
        and the provider's prices count.

        Example:
            >>> stats = Statistics(1, 2, 0, 0.1, input_tokens=900, output_tokens=100)
            >>> SortResult([(1, ["b"]), (2, ["a"])], [], stats).tokens_per_text
            500.0
        """
        items = sum(len(group) for _, group in self.rankings)
        used = self.statistics.input_tokens + self.statistics.output_tokens
        return used / items if items else 0.0

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
    def length_preference(self) -> CovariateEffect | None:
        """The judge's preference for longer texts, in logits per sd of log length.

        None for a pointwise run, fewer than three items, texts all of one length, or no
        call with a verdict. See `llm_qualitative_sort.rating.preference`.
        """
        # Imported here, lazily, as `_rating`: the fit needs SciPy's optimizers.
        from llm_qualitative_sort.rating.preference import length_preference

        return None if self.pointwise else length_preference(self._judge_rating)

    @cached_property
    def _top_k(self) -> dict[int, dict[str, float]]:
        return {}

    @cached_property
    def _judge_rating(self) -> Rating:
        # The fit of the judge's own calls, which an order anchored by people's labels
        # replaces as `_rating`: the judge's preferences are read from its calls alone.
        return self._rating

    @cached_property
    def _rating(self) -> Rating:
        # Imported here, lazily: the fit loads NumPy and SciPy, which a result whose scores
        # are never read (and `import llm_qualitative_sort.models`) should not pay for.
        from llm_qualitative_sort.rating.result import Rating

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
    RANKING_CALL says a ranking call (Swiss `group_size` > 2) was answered: its data holds
    the `items` as shown, the `order` (texts best first, None: no order), `cached`,
    `journaled` (a resumed run found it answered before), and the tokens.
    """

    MATCH_START = "match_start"
    MATCH_END = "match_end"
    ROUND_END = "round_end"
    BRACKET_CHANGE = "bracket_change"
    STANDINGS = "standings"
    BATCH = "batch"
    RATE_LIMIT = "rate_limit"
    RANKING_CALL = "ranking_call"


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
