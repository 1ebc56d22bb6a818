"""How the calls of a round are answered: the seam between the tournament and the judge.

The comparison node turns a round's matches into `Call`s and hands them to one `CallRunner`,
chosen once per run: live calls under a concurrency limit (`live.py`), or a provider's batch
interface (one batch per round). Every runner looks in the run journal and the user's cache
first, journals each answer before reporting it, and never counts a failure as a verdict.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from langgraph.types import RetryPolicy

from llm_qualitative_sort._calls.rate_gate import RateBook
from llm_qualitative_sort.prompts.setup import PromptSetup
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.rating.scoring import PointwiseResult, ScoreQuestion
from llm_qualitative_sort.results.events import EventSink, QuietSink
from llm_qualitative_sort.stores.answers import CallAnswer, stored_fields
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.stores.entries import CallFacts, CallPlace
from llm_qualitative_sort.tournament import Elimination, StrategySettings
from llm_qualitative_sort.tournament.records import stored_call
from llm_qualitative_sort.verdicts import ComparisonResult, Order, Verdict


@dataclass(frozen=True, slots=True)
class Call:
    """One LLM call: where it sits in the run, the texts it shows, and its repetition index.

    `repetition` counts the calls that show these two texts in this order to the judge
    (within a match, and across rematches where the strategy asks for fresh judgements);
    it is part of the cache key and of the seeded mock's draw.
    """

    place: CallPlace
    repetition: int


def batch_answer(result: CallAnswer) -> bool:
    """Whether a result was answered by a provider batch (it names the batch)."""
    return isinstance(result.raw_response.get("batch"), dict)


def call_log(
    order: Order, winner: Verdict | None, result: ComparisonResult, cached: bool,
    facts: CallFacts | None,
) -> list[Any]:
    """A call as the graph stores it (see `tournament.records.CallRecord`), `winner` in match terms.

    The trailing facts are stored only when there are any: the judge of a panel,
    whether a provider batch answered (priced at the batch price), and the judge's
    probability that the match's first item wins (a soft verdict; see `match_probability`).
    """
    raw = result.raw_response
    if not facts and result.probability is None and "batch" not in raw:
        # Most calls: no facts, so no mapping of them is built per call.
        return stored_call(order, winner, result.reasoning, cached, result.input_tokens,
                           result.output_tokens)
    stored = dict(facts or {})
    if not cached and batch_answer(result):
        stored["batch"] = True
    if result.probability is not None and winner is not None:
        stored["probability"] = match_probability(order, result.probability)
    return stored_call(order, winner, result.reasoning, cached, result.input_tokens,
                       result.output_tokens, stored)


def score_log(result: PointwiseResult, cached: bool, facts: CallFacts | None) -> list[Any]:
    """A call that scored a text alone as the graph stores it (see `call_log`).

    Its label and spread are among its facts, `"pointwise"` (the form the journal and cache
    store, `stores.answers`); the call stores the verdict "A" when it gave a label, as
    scores have always been stored in a run's history.
    """
    stored = dict(facts or {})
    if not cached and batch_answer(result):
        stored["batch"] = True
    label = stored_fields(result)[0]
    if label is not None:
        stored["pointwise"] = label
    return stored_call("AB", "A" if label is not None else None, result.reason, cached,
                       result.input_tokens, result.output_tokens, stored)


def match_probability(order: str, first_shown: float) -> float:
    """The probability that the match's `item_a` wins, from the first-shown text's.

    Example:
        >>> match_probability("AB", 0.8), round(match_probability("BA", 0.8), 6)
        (0.8, 0.2)
    """
    return first_shown if order == "AB" else 1.0 - first_shown


class AnswerSink(Protocol):
    """Reports one answer as soon as it is known.

    Its arguments: the index of the call in the round's list, the result, whether it came
    from the cache, and the call's facts (the judge of a panel, say), if any.
    """

    def __call__(
        self, index: int, result: CallAnswer, cached: bool, facts: CallFacts | None = None
    ) -> None:
        """Record the answer."""



@dataclass
class CallSettings:
    """What a runner needs to answer calls; built once per round by the comparison node."""

    provider: LLMProvider
    criteria: str
    cache: ComparisonCache | None
    journal: RunJournal
    retry: RetryPolicy
    max_concurrent_requests: int
    call_timeout: float | None = None
    # Where batch progress goes; a quiet sink builds none when nobody listens.
    events: EventSink = field(default_factory=QuietSink)
    # Name the judge in every call's facts: a run resumed by another judge than its first.
    name_judge: bool = False
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    # The run's strategy settings: whether the judge may answer that two texts are equally
    # good (`offers_ties`), and whether answers are read for their probabilities too
    # (`soft_verdicts`). By default neither.
    rules: StrategySettings = field(default_factory=Elimination)
    # The run's own prompt (None: the default); its calls are cached apart.
    prompt: PromptSetup | None = None
    # A pointwise round's question (a pointwise run, a Swiss pre-pass): each call shows
    # one text and asks for a label.
    question: ScoreQuestion | None = None
    # The pace of each judge's calls under its rate limits (None: no pacing).
    rates: RateBook | None = None


class CallRunner(ABC):
    """Answers the calls of one round.

    Args:
        settings: The provider, cache, journal and limits of the run.
    """

    def __init__(self, settings: CallSettings) -> None:
        self.settings = settings

    @abstractmethod
    async def run(self, calls: Sequence[Call], answered: AnswerSink) -> None:
        """Answer every call, reporting each through `answered` as soon as it is known.

        Each answer is in the run journal before it is reported, so a verdict is never
        acted on unless a resumed run would replay it. When a call fails for good, the calls
        in flight finish (and are journaled), no new call starts, and the first failure is
        raised.
        """
