"""The retry policy's rules for one failed attempt: whether to retry, and how long to wait."""

from __future__ import annotations

import random
from collections.abc import Sequence

from langgraph.types import RetryPolicy

from llm_qualitative_sort.errors import TransientProviderError


def retryable(policy: RetryPolicy, exc: Exception) -> bool:
    """Whether the policy retries `exc` (its `retry_on`: a class, classes or a test)."""
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
