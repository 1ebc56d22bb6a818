"""Batch calls: the round's unanswered calls as one provider batch, exactly once.

The run journal and the user's cache answer what they can; the rest goes to the provider's
batch interface as one batch (split only where the provider's limits require it). Every
batch is recorded before it is submitted and once its id is known (`stores.batch_journal`), so a
process killed while waiting resumes by polling the same batch. When a batch ends, each
answer is journaled before it is reported; requests the batch did not answer (expired,
cancelled, failed) go alone into the next batch, and answers without a verdict are asked
again there, as the live path asks again. A pointwise round's requests (a pointwise run, or
a Swiss pre-pass) show one text each and ask the round's question; their labels travel like
verdicts. A ranking call (Swiss `group_size` > 2) is one `Rank` request; its order travels as
the live path's does, under the live path's cache key.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort._calls._batch_outcomes import Collected, collect
from llm_qualitative_sort._calls._batch_requests import (
    call_request,
    job_request,
    recorded_request,
    split,
)
from llm_qualitative_sort._calls._cutoff import CallCancelled, cancel_requests, stray_cancel
from llm_qualitative_sort._calls._patient import PatientClient
from llm_qualitative_sort._calls.base import (
    AnswerSink,
    Call,
    CallRunner,
    CallSettings,
)
from llm_qualitative_sort._calls.judge import storable
from llm_qualitative_sort._calls.ranking import RANKING_MARK, key_texts
from llm_qualitative_sort.errors import (
    PermanentProviderError,
    RunDetached,
    TransientProviderError,
)
from llm_qualitative_sort.prompts._run import prompt_key
from llm_qualitative_sort.providers._batch import BatchClient, BatchRequest, BatchStatus
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers.questions import Request
from llm_qualitative_sort.stores.answers import usable
from llm_qualitative_sort.stores.base import BatchRecords
from llm_qualitative_sort.stores.batch_journal import BatchJob
from llm_qualitative_sort.stores.batch_journal import storable as storable_job
from llm_qualitative_sort.stores.cache import CallKeys
from llm_qualitative_sort.stores.entries import CallFacts, question_kind


class BatchRunner(CallRunner):
    """Answers a round's calls through one provider batch (or a few, beyond its limits).

    Args:
        settings: The provider, cache, journal and limits of the run.
        client: The provider's batch interface.
    """

    def __init__(self, settings: CallSettings, client: BatchClient) -> None:
        super().__init__(settings)
        self.client = client

    async def run(self, calls: Sequence[Call], answered: AnswerSink) -> None:
        """Answer every call; see `CallRunner.run`."""
        if not calls:
            return
        place = calls[0].place
        store = self.settings.journal.batch_records(place.run_id, place.round_number)
        baseline = cancel_requests()
        try:
            await _Round(self.settings, self.client, store, calls, answered).play()
        except asyncio.CancelledError:
            if not stray_cancel(baseline):
                raise  # the run is being cancelled
            raise CallCancelled(
                f"round {place.round_number} ended in CancelledError though the run was not "
                "cancelled (a task inside the batch client or the cache was cancelled "
                "elsewhere); the calls without an answer have no verdict: resume the run"
            ) from None
        finally:
            store.close()


class _Round:
    """The batches of one round, until every call of the round is answered."""

    def __init__(
        self,
        settings: CallSettings,
        client: BatchClient,
        store: BatchRecords,
        calls: Sequence[Call],
        answered: AnswerSink,
    ) -> None:
        self.settings, self.client, self.store = settings, client, store
        self.provider = PatientClient(client, settings.retry)
        self.calls, self.answered = calls, answered
        self.index = {(c.place.match, c.place.call): i for i, c in enumerate(calls)}
        self.unanswered: set[int] = set()
        self.jobs: list[BatchJob] = []
        self.failures: dict[int, int] = {}  # this process's failed attempts per call
        self.options = client.options
        # Each call's cache keys, as its round began: a refusal of log-probabilities
        # learned meanwhile does not move an answer asked with them to the plain key.
        self.keys: dict[int, CallKeys] = {}

    async def play(self) -> None:
        """Replay, recover, submit, wait and collect until the round is answered."""
        await self._replay()
        self.jobs = self.store.jobs()
        if self.unanswered:
            await self._recover()
            await self._wait()
        self.settings.journal.flush()
        self.store.forget()

    async def _replay(self) -> None:
        """Answer from the run journal, then from the user's cache."""
        journal, cache = self.settings.journal, self.settings.cache
        for index, call in enumerate(self.calls):
            journaled = journal.entry(call.place)
            if journaled is not None:
                self.answered(index, *journaled)
                continue
            cached = await self._keys(index).read(cache) if cache is not None else None
            if cached is not None:
                journal.put(call.place, cached, cached=True, facts=self._facts())
                self.answered(index, cached, True, self._facts())
                continue
            self.unanswered.add(index)

    def _keys(self, index: int) -> CallKeys:
        if index not in self.keys:
            self.keys[index] = self._new_keys(self.calls[index])
        return self.keys[index]

    def _new_keys(self, call: Call) -> CallKeys:
        place = call.place
        provider = self.settings.provider
        rules = self.settings.rules
        identity = provider.tie_identity() if rules.offers_ties else provider.model_identity
        question = self.settings.question  # the round's; the live judge's key too
        identity += prompt_key(self.settings.prompt) + (question.identity if question else "")
        if self.settings.prompt is not None:
            identity += self.settings.prompt.pair_key(place.first, place.second)
        first, second = place.first, place.second
        if place.texts:  # the live judge's key of a ranking call
            first, second = key_texts(place)
            identity += RANKING_MARK
        return CallKeys.of(first, second, self.settings.criteria, call.repetition, identity,
                           logprobs=provider.asks_logprobs, soft=rules.soft_verdicts,
                           kind=question_kind(place.shown))

    async def _recover(self) -> None:
        """A batch recorded as submitting may have reached the provider: find it by tag."""
        for job in self.jobs:
            if job.state == "submitting":
                job.batch_id = await self.provider.find(job.tag)
                job.state = "open" if job.batch_id else "closed"
                self._save(job)

    async def _wait(self) -> None:
        # Batches found open after a restart are checked at once; new ones after a wait.
        due = self._open()
        interval = self.options.poll_interval
        while True:
            if await self._submit_uncovered():
                interval = self.options.poll_interval
            running = self._open()
            if not running:
                return
            if not due:
                if self.options.detach:
                    raise self._detached(running)
                await asyncio.sleep(interval)
                interval = min(interval * self.options.poll_backoff, self.options.max_poll_interval)
                due = running
            for job in due:
                await self._check(job)
            due = []

    def _facts(self) -> CallFacts:
        """The judge's name, when a run taken over by another judge names every call's."""
        return {"judge": self.settings.provider.model_identity} if self.settings.name_judge else {}

    def _save(self, job: BatchJob) -> None:
        self.store.save(storable_job(job, self.client.secret))

    def _close(self, job: BatchJob, kept: dict[tuple[int, int], dict[str, Any]]) -> None:
        self.store.close_job(storable_job(job, self.client.secret), kept)
        job.state = "closed"

    def _shown(self, job: BatchJob) -> str:
        """The batch's id for messages and events, with the API key masked out."""
        return redact(job.batch_id or job.tag, self.client.secret)

    def _open(self) -> list[BatchJob]:
        return [job for job in self.jobs if job.state == "open"]

    def _covered(self) -> set[int]:
        covered = set()
        for job in self._open():
            for request in job.requests:
                index = self.index.get((request.match, request.call))
                if index is not None and self.calls[index].place.shown == request.shown:
                    covered.add(index)
        return covered

    async def _submit_uncovered(self) -> bool:
        """Submit the unanswered calls that no open batch covers; True if any were."""
        waiting = sorted(self.unanswered - self._covered())
        for chunk in self._chunks(waiting):
            await self._submit(chunk)
        return bool(waiting)

    def _chunks(self, indices: list[int]) -> list[list[int]]:
        weights = [self.client.request_bytes(BatchRequest("", self._request(i)))
                   for i in indices]
        return [[indices[p] for p in chunk]
                for chunk in split(weights, self.client.max_requests, self.client.max_bytes)]

    async def _submit(self, indices: list[int]) -> None:
        place = self.calls[indices[0]].place
        seq = max((job.seq for job in self.jobs), default=0) + 1
        tag = f"lqs-r{place.round_number}-b{seq}-{secrets.token_hex(6)}"
        asking = [self._request(i) for i in indices]
        requests = [job_request(self.calls[i], request)
                    for i, request in zip(indices, asking, strict=True)]
        job = BatchJob(seq, tag, "submitting", requests)
        await self.settings.journal.input_saved(place.run_id)  # paid once it can resume
        self.jobs.append(job)
        self._save(job)  # durable before the provider hears of it
        batch = [BatchRequest(r.request_id, request)
                 for r, request in zip(requests, asking, strict=True)]
        try:
            job.batch_id = await self.provider.submit(batch, job.tag)
        except PermanentProviderError:
            job.state = "closed"  # refused: nothing was submitted, resume submits anew
            self._save(job)
            raise
        job.state = "open"
        self._save(job)  # durable before the run waits on it
        self._emit(job, BatchStatus("submitted", "running", 0, 0))

    async def _check(self, job: BatchJob) -> None:
        assert job.batch_id is not None
        status = await self.provider.status(job.batch_id)
        self._emit(job, status)
        if status.phase == "rejected":
            self._close(job, {})  # nothing was answered: resume submits anew
            if self.client.logprobs and self.client.logprobs_refused(400, status.message):
                return  # rejected for its log-probabilities: submitted again without them
            raise PermanentProviderError(
                f"{self.client.where()}: the provider rejected batch {self._shown(job)!r} "
                f"({status.state}): {status.message or 'no detail given'}"
            )
        if status.phase == "missing":
            raise PermanentProviderError(
                f"{self.client.where()}: batch {self._shown(job)!r} of round "
                f"{self.calls[0].place.round_number} is unknown to the provider (HTTP 404): "
                "it was deleted, or the run was resumed with another endpoint or key; resume "
                "with the ones that submitted it (or start a new run to give it up)"
            )
        if status.phase == "ended":
            await self._collect(job)

    def _request(self, index: int) -> Request:
        return call_request(self.calls[index], self.settings)

    def _asked(self, job: BatchJob) -> dict[str, Request]:
        """What each request of `job` asked that a call of this round still waits for."""
        asked: dict[str, Request] = {}
        for record in job.requests:
            index = self.index.get((record.match, record.call))
            if index is None or self.calls[index].place.shown != record.shown:
                continue
            request = recorded_request(record, self.calls[index], self.settings)
            if request is not None:
                asked[record.request_id] = request
        return asked

    async def _collect(self, job: BatchJob) -> None:
        assert job.batch_id is not None
        ids = [r.request_id for r in job.requests]
        outcomes = await self.provider.results(job.batch_id, ids, self._asked(job))
        kept = self.store.answers()
        done = collect(job, outcomes, self.index, self.calls, self.unanswered, kept,
                       self.client.reasks, self.settings.rules.offers_ties)
        done.final[:] = [(index, storable(result)) for index, result in done.final]
        for index, result in done.final:
            self.settings.journal.put(self.calls[index].place, result, cached=False,
                                      facts=self._facts())
            self.unanswered.discard(index)
            self.answered(index, result, False, self._facts())
        self.settings.journal.flush()  # the answers are on disk before the batch is closed
        self._close(job, done.kept)
        await self._cache(done)
        self._count_failures(done)

    async def _cache(self, done: Collected) -> None:
        if self.settings.cache is None:
            return
        for index, result in done.final:
            if usable(result):
                await self.settings.cache.set(self._keys(index).own, result)

    def _count_failures(self, done: Collected) -> None:
        if done.refused:
            index, reason = done.refused[0]
            raise PermanentProviderError(
                f"{self.client.where()}: the provider refused a request of the batch "
                f"({self._name(index)}): {reason}"
            )
        for index, reason in done.failed:
            self.failures[index] = self.failures.get(index, 0) + 1
            if self.failures[index] >= self.provider.attempts:
                raise TransientProviderError(
                    f"{self.client.where()}: a request ({self._name(index)}) went unanswered "
                    f"in {self.failures[index]} batches; last: {reason}"
                )

    def _name(self, index: int) -> str:
        place = self.calls[index].place
        return f"round {place.round_number}, match {place.match}, call {place.call}"

    def _emit(self, job: BatchJob, status: BatchStatus) -> None:
        self.settings.events.batch(self.calls[0].place.round_number, self._shown(job),
                                   len(job.requests), status)

    def _detached(self, running: list[BatchJob]) -> RunDetached:
        place = self.calls[0].place
        ids = [self._shown(job) for job in running]
        return RunDetached(
            f"round {place.round_number} is waiting on batch {', '.join(ids)} "
            f"({len(self.unanswered)} calls)", run_id=place.run_id, batches=ids,
        )

