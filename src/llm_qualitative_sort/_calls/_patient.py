"""A batch client whose calls are retried like the live path's, and submitted exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from langgraph.types import RetryPolicy

from llm_qualitative_sort._calls._cutoff import cancel_requests, stray_cancel
from llm_qualitative_sort._calls.retrying import backoff_delay
from llm_qualitative_sort.errors import PermanentProviderError, TransientProviderError, message_of
from llm_qualitative_sort.providers._batch import BatchClient, BatchRequest, BatchStatus, Outcome
from llm_qualitative_sort.providers._failures import classify, status_of
from llm_qualitative_sort.providers.questions import Request

T = TypeVar("T")
Failure = TransientProviderError | PermanentProviderError


class PatientClient:
    """`client`'s operations, retried on transient failures with the run's retry policy.

    Failures are classified as on the live path (key masked); a permanent one, or the
    last attempt's, is raised. A submission that failed transiently may still have
    reached the provider, so before trying again the batch is looked for by its tag. One
    refused for its log-probabilities is made again at once without them.

    Args:
        client: The provider's batch interface.
        retry: The run's retry policy (attempts and backoff).
    """

    def __init__(self, client: BatchClient, retry: RetryPolicy) -> None:
        self.client = client
        self.retry = retry
        self.attempts = max(retry.max_attempts, 1)

    async def submit(self, requests: Sequence[BatchRequest], tag: str) -> str:
        """Submit once: a batch found under `tag` after a failed try is the one submitted."""
        attempt = 1
        while True:
            try:
                return await self._attempt(self.client.submit, requests, tag)
            except Exception as exc:
                if self.client.logprobs and self.client.logprobs_refused(status_of(exc),
                                                                         message_of(exc)):
                    continue  # nothing was created: submitted again at once, without them
                await self._pause(exc, attempt)
                attempt += 1
            found = await self.find(tag)
            if found is not None:
                return found

    async def find(self, tag: str) -> str | None:
        """The id of the batch submitted with `tag`, or None."""
        return await self._retrying(self.client.find, tag)

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""
        return await self._retrying(self.client.status, batch_id)

    async def results(self, batch_id: str, request_ids: Sequence[str],
                      asked: Mapping[str, Request]) -> dict[str, Outcome]:
        """The outcome of each request of an ended batch, read as `asked` says."""
        return await self._retrying(self.client.results, batch_id, request_ids, asked)

    async def _retrying(self, operation: Callable[..., Awaitable[T]], *args: Any) -> T:
        attempt = 1
        while True:
            try:
                return await self._attempt(operation, *args)
            except Exception as exc:
                await self._pause(exc, attempt)
                attempt += 1

    async def _attempt(self, operation: Callable[..., Awaitable[T]], *args: Any) -> T:
        """One try; a `CancelledError` nobody asked for is a transient failure of the client."""
        baseline = cancel_requests()
        try:
            return await operation(*args)
        except asyncio.CancelledError:
            if not stray_cancel(baseline):
                raise  # the run is being cancelled
            raise TransientProviderError(
                f"{self.client.where()}: the client raised CancelledError though the run was "
                "not cancelled (a task inside it was cancelled elsewhere)"
            ) from None

    async def _pause(self, exc: Exception, attempt: int) -> None:
        """Wait before the next attempt, or raise the classified failure."""
        error = self._classified(exc)
        if isinstance(error, PermanentProviderError) or attempt >= self.attempts:
            raise error from None  # the client's exception may quote request details
        await asyncio.sleep(backoff_delay(self.retry, attempt, error))

    def _classified(self, exc: Exception) -> Failure:
        if isinstance(exc, (TransientProviderError, PermanentProviderError)):
            return exc
        error = classify(exc, where=self.client.where(), secret=self.client.secret)
        if error is None:
            raise exc  # not a provider failure: a bug, shown as it is
        assert isinstance(error, (TransientProviderError, PermanentProviderError))
        return error
