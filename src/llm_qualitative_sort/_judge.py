"""One LLM call of a match: journal, then cache, then the provider with retries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from langgraph.types import RetryPolicy

from llm_qualitative_sort._journal import CallPlace
from llm_qualitative_sort._stops import describe
from llm_qualitative_sort.cache import CacheKey, ComparisonCache
from llm_qualitative_sort.errors import PermanentProviderError, TransientProviderError
from llm_qualitative_sort.models import ComparisonResult, InvalidAnswerError, answer_problem
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.stores.base import RunJournal


class CallsStopped(Exception):
    """Another call of the round failed for good; no new call is started."""


@dataclass
class Judge:
    """Makes the calls of one round under a shared concurrency limit.

    After any call fails for good, `stop` is set: calls not yet started are skipped while
    those in flight finish and are journaled, so nothing paid for is thrown away.
    """

    provider: LLMProvider
    criteria: str
    cache: ComparisonCache | None
    journal: RunJournal
    retry: RetryPolicy
    semaphore: asyncio.Semaphore
    stop: asyncio.Event
    timeout: float | None = None

    async def call(self, place: CallPlace, repetition: int) -> tuple[ComparisonResult, bool]:
        """The answer to one call and whether it came from the user's cache."""
        journaled = self.journal.get(place)
        if journaled is not None:
            return journaled
        key = None
        if self.cache is not None:
            key = CacheKey.of(
                place.first, place.second, self.criteria, repetition, self.provider.model_identity
            )
            cached = await self.cache.get(key)
            if cached is not None:
                self.journal.put(place, cached, cached=True)
                return cached, True
        async with self.semaphore:
            if self.stop.is_set():
                raise CallsStopped
            self.journal.check()  # a journal that cannot save answers must not buy more
            result = await self._ask(place, repetition)
            # Journal before releasing the slot: the journal's flush is then scheduled
            # ahead of the next waiter, so no new call starts before this one is on disk.
            self.journal.put(place, result, cached=False)
        if self.cache is not None and key is not None and result.winner is not None:
            await self.cache.set(key, result)
        return result, False

    async def _ask(self, place: CallPlace, repetition: int) -> ComparisonResult:
        attempt = 1
        while True:
            try:
                return await self._checked_answer(place, repetition)
            except Exception as exc:
                if attempt >= self.retry.max_attempts or not _retryable(self.retry, exc):
                    self.stop.set()
                    raise
                await asyncio.sleep(backoff_delay(self.retry, attempt, exc))
                attempt += 1

    async def _checked_answer(self, place: CallPlace, repetition: int) -> ComparisonResult:
        """The provider's answer, refused unless every field is valid.

        A wrong answer is a bug of the provider, not a verdict: it stops the run (the
        answer is not journaled, so a fixed provider asks again on resume).
        """
        deadline = asyncio.timeout(self.timeout)
        try:
            async with deadline:
                result = await self.provider.compare_call(
                    place.first, place.second, self.criteria, repetition=repetition
                )
        except InvalidAnswerError as exc:
            raise PermanentProviderError(f"{self.provider!r} answered badly: {exc}") from exc
        except TimeoutError as exc:
            # Ours (call_timeout) or the provider's own: a slow answer may come next time.
            what = (f"gave no answer within call_timeout={self.timeout} s" if deadline.expired()
                    else f"timed out ({describe(exc)})")
            raise TransientProviderError(f"{self.provider!r} {what}") from exc
        problem = answer_problem(result)
        if problem:
            raise PermanentProviderError(f"{self.provider!r} answered badly: {problem}")
        return result


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
