"""A provider's batch interface: a round's calls as one provider batch, at the batch price.

OpenAI's Batch API and Gemini's batch mode answer the same requests as the live endpoints at
about half the price, within hours instead of seconds. A `BatchClient` only speaks to the
provider: it submits requests under a tag, finds a batch by its tag (after a crash between
submitting and recording the id), reports a batch's state and counts, and hands back each
request's outcome. Durability, re-submission and waiting belong to the batch runner
(`llm_qualitative_sort._calls.batch`). Each request carries its own `Request`: the prompt
and schema it is sent with (`request_prompt`) and the rules its answer is read by (a
verdict, a label of the scale, an order of the labels shown) are the live path's.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from langchain_core.messages import BaseMessage

from llm_qualitative_sort.errors import InputError, PermanentProviderError, SettingTypeError
from llm_qualitative_sort.prompts._comparison import build_messages, verdict_schema
from llm_qualitative_sort.prompts._ranking import (
    own_prompt_refusal,
    ranking_messages,
    ranking_schema,
)
from llm_qualitative_sort.prompts._score import score_schema
from llm_qualitative_sort.prompts._score_messages import build_score_messages
from llm_qualitative_sort.providers._answer import Answer, read_answer
from llm_qualitative_sort.providers._failures import TRANSIENT_STATUS, redact
from llm_qualitative_sort.providers.logprobs import Token, refuses_logprobs
from llm_qualitative_sort.providers.questions import Compare, Request, Score


@dataclass(frozen=True)
class BatchOptions:
    """How batch mode waits, and what it saves.

    Args:
        poll_interval: Seconds before the first status check of a new batch; checks of a
            batch found waiting after a restart start at once.
        max_poll_interval: The longest wait between two status checks.
        poll_backoff: How much the wait grows after each check.
        discount: The share of the live price that batch calls save (0.5: half price),
            for `Statistics.estimated_cost`.
        detach: Never wait: submit the round's batch (or check it once) and stop with
            `RunDetached`; `resume` continues from whatever state the batch is in.

    Example:
        >>> BatchOptions(poll_interval=0.5).max_poll_interval
        600.0
    """

    poll_interval: float = 10.0
    max_poll_interval: float = 600.0
    poll_backoff: float = 1.5
    discount: float = 0.5
    detach: bool = False

    def __post_init__(self) -> None:
        for name in ("poll_interval", "max_poll_interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                0 < value < math.inf
            ):
                raise InputError(f"BatchOptions.{name} must be > 0 seconds, got {value!r}")
        if not self.poll_backoff >= 1:
            raise InputError(f"BatchOptions.poll_backoff must be >= 1, got {self.poll_backoff}")
        if not 0 <= self.discount < 1:
            raise InputError(f"BatchOptions.discount must be in [0, 1), got {self.discount}")


def batch_options(batch: bool | BatchOptions) -> BatchOptions | None:
    """The options for a provider's `batch=` argument: None when batch mode is off."""
    if isinstance(batch, BatchOptions):
        return batch
    if not isinstance(batch, bool):
        raise SettingTypeError(f"batch must be a bool or BatchOptions, got {type(batch).__name__}")
    return BatchOptions() if batch else None


@dataclass(frozen=True)
class BatchRequest:
    """One call in a batch: its id within the batch and the request it sends.

    The request says what is asked (a comparison, with or without a tie; a score; a
    ranking) and is read back by its own question: one batch may mix them.

    Example:
        >>> from llm_qualitative_sort.providers.questions import Compare, Request
        >>> BatchRequest("m0-c1", Request(Compare("x", "y"), "clarity")).request.criteria
        'clarity'
    """

    request_id: str
    request: Request


Phase = Literal["running", "ended", "rejected", "missing"]


@dataclass(frozen=True)
class BatchStatus:
    """A batch as the provider reports it.

    `state` is the provider's own word ("in_progress", "JOB_STATE_RUNNING"); `phase` says
    what it means here: still running, ended (results, possibly partial, can be read),
    rejected outright (a bad file, model or key: nothing was answered), or missing (the
    provider does not know the id at this endpoint with this key). `completed` is None
    when the provider does not count finished requests while the batch runs.
    """

    state: str
    phase: Phase
    completed: int | None = None
    failed: int | None = None
    message: str = ""


@dataclass(frozen=True)
class RequestFailure:
    """A request the batch did not answer; `retry` when a later batch may succeed."""

    reason: str
    retry: bool


# A request's outcome: its answer, or no answer at all.
Outcome = Answer | RequestFailure
_OVERHEAD_BYTES = 6_000


class BatchClient(ABC):
    """Speaks to one provider's batch interface.

    Args:
        options: Waiting and pricing settings.
        model: The model name, for messages.
        secret: The API key, masked out of every answer and message.
    """

    # The provider's limits on one batch; a round beyond them is split.
    max_requests: int = 50_000
    max_bytes: int = 100_000_000

    def __init__(self, options: BatchOptions, model: str, secret: str | None) -> None:
        self.options = options
        self.model = model
        self.secret = secret
        # How many more times a request is asked (in a later batch) when its answer has
        # no usable verdict: the live provider's `reasks`.
        self.reasks = 1
        # Whether requests ask for log-probabilities (the soft verdict), as the live calls
        # of the provider would; off for good once the provider refused them, and then
        # `on_logprobs_refused` tells the provider at once (a run of one round, too).
        self.logprobs = True
        self.on_logprobs_refused: Callable[[], None] | None = None

    def logprobs_refused(self, status: Any, message: str) -> bool:
        """Whether a failure is a refusal of the log-probabilities asked for (turns them off).

        A request, a batch or a batch's creation refused so is submitted again without them.
        Every request of a batch asked, so each one refused counts, also once turned off.
        """
        refused = refuses_logprobs(status, message)
        if refused:
            self.logprobs = False
            if self.on_logprobs_refused is not None:
                self.on_logprobs_refused()
        return refused

    @abstractmethod
    async def submit(self, requests: Sequence[BatchRequest], tag: str) -> str:
        """Submit one batch labelled with `tag`; return its id."""

    @abstractmethod
    async def find(self, tag: str) -> str | None:
        """The id of the batch submitted with `tag`, or None if there is none."""

    @abstractmethod
    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""

    @abstractmethod
    async def results(self, batch_id: str, request_ids: Sequence[str],
                      asked: Mapping[str, Request]) -> dict[str, Outcome]:
        """The outcome of each request the ended batch reports, by request id.

        `request_ids` lists the batch's requests in the order submitted; `asked` holds the
        request each id sent, by which its answer is read. A request missing from the
        result was not answered; the runner submits it again. An answer to a request not in
        `asked` (one the runner no longer needs) is left out.
        """

    def failure(self, status: Any, what: str, message: str, *, retry: bool = False
                ) -> RequestFailure:
        """A request the batch did not answer, its key masked.

        Asked again in a later batch when `retry` (a provider's own reason), when its HTTP
        status is transient or missing, or when it refused the log-probabilities asked for.

        Args:
            status: The request's HTTP status (None: the batch gave none).
            what: What failed, first in the reason ("HTTP 400", an error code).
            message: The provider's message.
            retry: Whether the provider's own error code says a later batch may succeed.
        """
        retry = (retry or status is None or status in TRANSIENT_STATUS
                 or self.logprobs_refused(status, message))
        return RequestFailure(redact(f"{what}: {message}", self.secret)[:500], retry)

    def request_bytes(self, request: BatchRequest) -> int:
        """An upper bound on one request's size in the batch input, for splitting.

        JSON escaping at most doubles a text; the prompt and the schema add a few KB.
        """
        texts = (*shown_texts(request.request), request.request.criteria)
        return 2 * sum(len(t.encode("utf-8")) for t in texts) + _OVERHEAD_BYTES

    def answer(
        self, request: Request, text: str | None, raw: dict[str, Any], tokens: tuple[int, int],
        refusal: str = "", logprobs: Sequence[Token] = (),
    ) -> Answer:
        """The answer to `request` in a structured-output answer, its key masked (`read_answer`).

        Args:
            request: What was asked.
            text: The answer's text (the JSON answer), or None when there is none.
            raw: What to keep in `raw_response`.
            tokens: Input and output tokens of the request.
            refusal: The model's refusal, if it refused.
            logprobs: The generated tokens with their alternatives, when the answer had them.
        """
        return read_answer(request, text, raw, tokens, self.secret, refusal, logprobs)

    def where(self) -> str:
        """The model, for messages."""
        return f"batch of model {self.model!r}"


T = TypeVar("T")
# How many of the newest batches `find` looks through for a tag.
FIND_LIMIT = 1000


async def newest_tagged(batches: AsyncIterable[T], tagged: Callable[[T], str | None]
                        ) -> str | None:
    """The id `tagged` reads from the first of the newest batches it recognises, or None.

    `batches` lists a provider's batches newest first; only the newest `FIND_LIMIT` are read.
    """
    seen = 0
    async for batch in batches:
        found = tagged(batch)
        if found is not None:
            return found
        seen += 1
        if seen >= FIND_LIMIT:
            break
    return None


class PerLoop(Generic[T]):
    """One object per running event loop, built on first use.

    The SDK clients bind their connections to the loop they first ran on, and building one
    costs tens of milliseconds (an SSL context), so a provider keeps one per loop across
    rounds rather than one per round. Outside a loop, every call builds a fresh one.
    """

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = (
            weakref.WeakKeyDictionary()
        )

    def get(self) -> T:
        """The object of the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self._build()
        if loop not in self._by_loop:
            self._by_loop[loop] = self._build()
        return self._by_loop[loop]


def shown_texts(request: Request) -> tuple[str, ...]:
    """The texts `request` shows, in the order shown.

    Example:
        >>> from llm_qualitative_sort.providers.questions import Compare
        >>> shown_texts(Request(Compare("x", "y"), "clarity"))
        ('x', 'y')
    """
    question = request.question
    if isinstance(question, Compare):
        return (question.first, question.second)
    if isinstance(question, Score):
        return (question.text,)
    return question.texts


def request_prompt(request: Request) -> tuple[list[BaseMessage], str, dict[str, Any]]:
    """The messages `request` is sent with, and the name and JSON schema of its answer.

    The live path's: the run's own template for a comparison or a score where it has one;
    a ranking only with the built-in ranking prompt.

    Raises:
        PermanentProviderError: A ranking request in a run with its own comparison template.
    """
    question, criteria = request.question, request.criteria
    if isinstance(question, Compare):
        return (build_messages(question.first, question.second, criteria, ties=request.ties),
                "Verdict", verdict_schema(request.ties))
    if isinstance(question, Score):
        return (build_score_messages(question.text, criteria, question.scale,
                                     question.inverse), "Score", score_schema(question.scale))
    refusal = own_prompt_refusal()
    if refusal:
        raise PermanentProviderError(f"a batch asks no ranking call here: {refusal}")
    return (ranking_messages(question.texts, question.labels, criteria, ties=request.ties),
            "Ranking", ranking_schema(question.labels, request.ties))
