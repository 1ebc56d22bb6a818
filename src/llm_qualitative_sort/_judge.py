"""One LLM call of a match: journal, then cache, then the provider with retries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from langgraph.types import RetryPolicy

from llm_qualitative_sort._deadlines import Deadlines
from llm_qualitative_sort._journal import Answer, CallFacts, CallPlace
from llm_qualitative_sort._stops import describe, name_judge
from llm_qualitative_sort.cache import CacheKey, ComparisonCache
from llm_qualitative_sort.errors import PermanentProviderError, TransientProviderError
from llm_qualitative_sort.models import (
    TIE,
    ComparisonResult,
    InvalidAnswerError,
    answer_problem,
    refused_tie,
)
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.stores.base import RunJournal


class CallsStopped(Exception):
    """Another call of the round failed for good; no new call is started."""


@dataclass
class Judge:
    """Makes calls: journal first, then the cache, then the provider with retries.

    The caller bounds how many run at once (see `_calls.live.CallPool`). After any call
    fails for good, `stop` is set: calls not yet started are skipped while those in flight
    finish and are journaled, so nothing paid for is thrown away.
    """

    provider: LLMProvider
    criteria: str
    cache: ComparisonCache | None
    journal: RunJournal
    retry: RetryPolicy
    stop: asyncio.Event
    timeout: float | None = None
    ties: bool = False
    model_identity: str = field(init=False)
    deadlines: Deadlines | None = field(init=False)

    def __post_init__(self) -> None:
        # Per run, not per call: the identity is a cache-key field, and one timer serves
        # every call's deadline.
        self.model_identity = _identity(self.provider, self.ties)
        self.deadlines = Deadlines(self.timeout) if self.timeout is not None else None

    async def call(self, place: CallPlace, repetition: int) -> Answer:
        """The answer to one call, whether it came from the user's cache, and its facts.

        The facts name the judge that answered when the provider hands calls to several
        (`LLMProvider.judge_of`); they are journaled with the answer, so a resumed run keeps
        the attribution.
        """
        journaled = self.journal.entry(place)
        if journaled is not None:
            return journaled
        judge = self.provider.judge_of(place.first, place.second, repetition=repetition)
        facts: CallFacts = {}
        identity = self.model_identity
        if judge is not self.provider:
            facts = {"judge": judge.model_identity}
            identity = _identity(judge, self.ties)
        key = None
        if self.cache is not None:
            key = CacheKey.of(place.first, place.second, self.criteria, repetition, identity)
            cached = await self.cache.get(key)
            if cached is not None:
                self.journal.put(place, cached, cached=True, facts=facts)
                return cached, True, facts
        if self.stop.is_set():
            raise CallsStopped
        self.journal.check()  # a journal that cannot save answers must not buy more
        result = await self._ask(judge, place, repetition)
        # Journal before the slot is given back: the journal's flush is then scheduled
        # ahead of the next call, so no new call starts before this one is on disk.
        self.journal.put(place, result, cached=False, facts=facts)
        if self.cache is not None and key is not None and result.winner is not None:
            await self.cache.set(key, result)
        return result, False, facts

    async def _ask(self, judge: LLMProvider, place: CallPlace, repetition: int) -> ComparisonResult:
        attempt = 1
        while True:
            try:
                return await self._checked_answer(judge, place, repetition)
            except Exception as exc:
                if attempt >= self.retry.max_attempts or not _retryable(self.retry, exc):
                    self.stop.set()
                    name_judge(exc, judge)
                    raise
                await asyncio.sleep(backoff_delay(self.retry, attempt, exc))
                attempt += 1

    async def _checked_answer(
        self, judge: LLMProvider, place: CallPlace, repetition: int
    ) -> ComparisonResult:
        """The provider's answer, refused unless every field is valid.

        A wrong answer is a bug of the provider, not a verdict: it stops the run (the
        answer is not journaled, so a fixed provider asks again on resume).
        """
        watch = self.deadlines.watch() if self.deadlines is not None else None
        try:
            if self.ties:
                result = await judge.compare_call(
                    place.first, place.second, self.criteria, repetition=repetition, ties=True
                )
            else:
                result = await judge.compare_call(
                    place.first, place.second, self.criteria, repetition=repetition
                )
        except InvalidAnswerError as exc:
            raise PermanentProviderError(f"{judge!r} answered badly: {exc}") from exc
        except asyncio.CancelledError:
            if watch is None or not watch.expired():
                raise
            raise TransientProviderError(
                f"{judge!r} gave no answer within call_timeout={self.timeout} s"
            ) from None
        except TimeoutError as exc:
            # The provider's own: a slow answer may come next time.
            what = f"timed out ({describe(exc)})"
            raise TransientProviderError(f"{judge!r} {what}") from exc
        finally:
            if watch is not None:
                watch.done = True
        problem = answer_problem(result)
        if problem:
            raise PermanentProviderError(f"{judge!r} answered badly: {problem}")
        if result.winner == TIE and not self.ties:
            return refused_tie(result)
        return result


def _identity(judge: LLMProvider, ties: bool) -> str:
    # A call that offers a tie asks another question: its answers are cached apart.
    return judge.tie_identity() if ties else judge.model_identity


def _retryable(policy: RetryPolicy, exc: Exception) -> bool:
    retry_on = policy.retry_on
    if isinstance(retry_on, type):
        return isinstance(exc, retry_on)
    if isinstance(retry_on, Sequence):
        return isinstance(exc, tuple(retry_on))
    return bool(retry_on(exc))


def backoff_delay(policy: RetryPolicy, attempt: int, exc: Exception) -> float:
    """Seconds to wait before attempt `attempt + 1`.

    The server's Retry-After if it gave one, else exponential backoff capped at
    `max_interval`, with up to 1 s of jitter.
    """
    retry_after = exc.retry_after if isinstance(exc, TransientProviderError) else None
    if retry_after is not None:
        return min(max(retry_after, 0.0), policy.max_interval)
    delay = policy.initial_interval * policy.backoff_factor ** (attempt - 1)
    delay = min(delay, policy.max_interval)
    # Jitter spreads out the retries of calls that failed together (one 429 burst).
    return delay + (random.uniform(0, min(1.0, delay)) if policy.jitter else 0.0)
