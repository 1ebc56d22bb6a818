"""A retry policy that also tells the display about each retry as it happens."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from langgraph.types import RetryPolicy

from llm_qualitative_sort.graph.context import DEFAULT_RETRY


def watched_retry(
    notify: Callable[[BaseException], None], policy: RetryPolicy = DEFAULT_RETRY
) -> RetryPolicy:
    """`policy`, whose retry test calls `notify(error)` for every failure it will retry.

    The engine asks the test only while attempts remain, so each call of `notify` is one
    retry about to wait and happen.
    """
    base = policy.retry_on

    def retry_on(error: Exception) -> bool:
        retried = _matches(base, error)
        if retried:
            notify(error)
        return retried

    return policy._replace(retry_on=retry_on)


def _matches(
    rule: type[Exception] | Sequence[type[Exception]] | Callable[[Exception], bool],
    error: Exception,
) -> bool:
    if isinstance(rule, type):
        return isinstance(error, rule)
    if isinstance(rule, Sequence):
        return isinstance(error, tuple(rule))
    return bool(rule(error))
