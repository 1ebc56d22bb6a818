"""One LLM call of a match: journal, then cache, then the provider with retries."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import NoReturn

from langgraph.types import RetryPolicy

from llm_qualitative_sort._calls._cutoff import CallCancelled as CallCancelled
from llm_qualitative_sort._calls._cutoff import (
    call_outcome,
    cancels_promptly,
    provider_task,
    retrieve,
)
from llm_qualitative_sort._calls._cutoff import cancel_requests as cancel_requests
from llm_qualitative_sort._calls._cutoff import stray_cancel as stray_cancel
from llm_qualitative_sort._calls.deadlines import Deadlines
from llm_qualitative_sort._calls.ranking import RANKING_MARK, checked, key_texts, question_of
from llm_qualitative_sort._calls.rate_control import Pause
from llm_qualitative_sort._calls.rate_gate import (
    RateBook,
    RateGate,
    RateWaitTooLong,
    span,
)
from llm_qualitative_sort._calls.retrying import backoff_delay, retryable
from llm_qualitative_sort._calls.storable import storable_raw
from llm_qualitative_sort.errors import (
    PermanentProviderError,
    RateLimitedError,
    RunLockedError,
    StorageError,
    TransientProviderError,
    describe,
)
from llm_qualitative_sort.providers._rate_signals import listen
from llm_qualitative_sort.providers._tokens import call_tokens
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.questions import Compare, Question, Request, Score
from llm_qualitative_sort.rating.scoring import ScoreQuestion, pointwise_problem
from llm_qualitative_sort.results.events import RateNews
from llm_qualitative_sort.results.stops import name_judge
from llm_qualitative_sort.stores.answers import CallAnswer, usable
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.cache import CallKeys, ComparisonCache
from llm_qualitative_sort.stores.entries import Answer, CallFacts, CallPlace, question_kind
from llm_qualitative_sort.tournament import Elimination, StrategySettings
from llm_qualitative_sort.verdicts import (
    TIE,
    ComparisonResult,
    InvalidAnswerError,
    answer_problem,
    refused_tie,
)

# The facts of a call that has none (most calls): one shared mapping, read only.
_NO_FACTS: CallFacts = {}
# What the journal's check raises: the run was taken over, or its answers cannot be kept.
_JOURNAL_STOPS = (RunLockedError, StorageError)


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
    # Name even a single judge in each call's facts (a run resumed by another judge).
    name_judge: bool = False
    # The run's strategy settings: whether a tie is a verdict (`offers_ties`); whether the
    # verdicts are soft, so a cached answer must keep its probability (`CallKeys`).
    rules: StrategySettings = field(default_factory=Elimination)
    # Appended to cache identities: a run's own prompt asks another question.
    prompt_key: str = ""
    # Appended per call: the fields its prompt shows of the two texts (None: no fields).
    pair_key: Callable[[str, str], str] | None = None
    # A pointwise run's question: each call scores one text (a `Score` request).
    question: ScoreQuestion | None = None
    # The run's rate gates (None: no pacing) and the calls in flight they start from.
    rates: RateBook | None = None
    ceiling: int = 10
    # Told when a judge's calls begin to wait for the rate limit (the progress shows it).
    on_rate: Callable[[RateNews], None] | None = None
    # Await a provider that `cancels_promptly` in the call's task: a turn of the event loop
    # and a task fewer per call. Only where the order calls end in changes nothing (the
    # rounds schedule); the pipelined schedule pairs players as their calls end.
    direct: bool = False
    model_identity: str = field(init=False)
    # `rules.offers_ties` and `rules.soft_verdicts`, read once: every call's request
    # carries them.
    ties: bool = field(init=False)
    soft: bool = field(init=False)
    deadlines: Deadlines | None = field(init=False)
    abandoned: set[asyncio.Future[CallAnswer]] = field(init=False, default_factory=set)
    # Runs whose input was found saved (see `RunJournal.input_saved`).
    saved_inputs: set[str] = field(init=False, default_factory=set)
    # The run's own judge's gate, once looked up (a tuple: its gate may be None).
    own_gate: tuple[RateGate | None] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        # Per run, not per call: the identity is a cache-key field, and one timer serves
        # every call's deadline.
        self.prompt_key += self.question.identity if self.question is not None else ""
        self.ties, self.soft = self.rules.offers_ties, self.rules.soft_verdicts
        self.model_identity = _identity(self.provider, self.ties) + self.prompt_key
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
        facts: CallFacts = _NO_FACTS  # shared, never written to: most calls have none
        identity = self.model_identity
        if judge is not self.provider or self.name_judge:
            facts = {"judge": judge.model_identity}
            identity = _identity(judge, self.ties) + self.prompt_key
        if self.pair_key is not None:
            identity += self.pair_key(place.first, place.second)
        keys = None
        if self.cache is not None:
            first, second = (place.first, place.second) if not place.texts else key_texts(place)
            if place.texts:
                identity += RANKING_MARK
            keys = CallKeys.of(first, second, self.criteria, repetition, identity,
                               logprobs=judge.asks_logprobs, soft=self.soft,
                               kind=question_kind(place.shown))
            cached = await keys.read(self.cache)
            if cached is not None:
                self.journal.put(place, cached, cached=True, facts=facts)
                return cached, True, facts
        if self.stop.is_set():
            raise CallsStopped
        if place.run_id not in self.saved_inputs:  # paid once the run can be resumed
            await self.journal.input_saved(place.run_id)
            self.saved_inputs.add(place.run_id)  # saved for good: never waited for again
        self.journal.check()  # a journal that cannot save answers must not buy more
        result = await self._ask(judge, place, repetition)
        # Journal before the slot is given back: the journal's flush is then scheduled
        # ahead of the next call, so no new call starts before this one is on disk.
        self.journal.put(place, result, cached=False, facts=facts)
        if self.cache is not None and keys is not None and usable(result):
            await self.cache.set(keys.own, result)
        return result, False, facts

    def _ask(self, judge: LLMProvider, place: CallPlace,
             repetition: int) -> Awaitable[CallAnswer]:
        gate = self._gate(judge)
        if gate is not None:
            return self._paced(gate, judge, place, repetition)
        return self._retried(judge, place, repetition)

    def _gate(self, judge: LLMProvider) -> RateGate | None:
        """The judge's rate gate; the run's own judge's is looked up once per round."""
        if self.rates is None:
            return None
        if judge is not self.provider:
            return self.rates.gate(judge, self.ceiling)
        if self.own_gate is None:
            self.own_gate = (self.rates.gate(judge, self.ceiling),)
        return self.own_gate[0]

    async def _retried(self, judge: LLMProvider, place: CallPlace,
                       repetition: int) -> CallAnswer:
        """`_ask` without a rate gate: retries with backoff only."""
        attempt = 1
        while True:
            try:
                return await self._checked_answer(judge, place, repetition)
            except Exception as exc:
                if isinstance(exc, RateLimitedError) and self.rates is not None:
                    self.rates.limited_unpaced()
                await self._failed(judge, exc, attempt)
                attempt += 1

    async def _failed(self, judge: LLMProvider, exc: Exception, attempt: int) -> None:
        """Wait before the next attempt, or stop the run with `exc`."""
        if isinstance(exc, _JOURNAL_STOPS):
            # The journal's check before the attempt (`_held_answer`), not the judge's
            # failure: never retried, whatever the policy retries.
            self.stop.set()
            raise exc
        if attempt >= self.retry.max_attempts or not retryable(self.retry, exc):
            self._give_up(judge, exc)
        await asyncio.sleep(backoff_delay(self.retry, attempt, exc))

    def _give_up(self, judge: LLMProvider, exc: Exception) -> NoReturn:
        """Stop the run with `exc`, the failure of `judge`'s call."""
        self.stop.set()
        name_judge(exc, judge)
        raise exc

    async def _paced(self, gate: RateGate, judge: LLMProvider, place: CallPlace,
                     repetition: int) -> CallAnswer:
        """`_ask` through the judge's rate gate.

        A 429 that says when to come back is flow control (no attempt used) while the
        call's waits stay under `rate_wait_limit`; a wait that would take it past that
        stops the run at once.
        """
        tokens = (call_tokens(place.first, place.second, self.criteria) if not place.texts
                  else call_tokens("".join(place.texts), "", self.criteria))
        attempt, waited = 1, 0.0
        while True:
            entered = gate.clock()
            try:
                epoch = await gate.enter(tokens, self.stop, waited)
            except RateWaitTooLong as exc:
                self._give_up(judge, exc)
            if epoch is None:
                raise CallsStopped
            waited += gate.clock() - entered
            note = listen()  # the provider's task inherits it: headers come back in it
            try:
                result = await self._checked_answer(judge, place, repetition)
            except BaseException as exc:
                pause = gate.left(epoch, tokens, error=exc, waited=waited)
                if not isinstance(exc, Exception):
                    raise
                self._tell(judge, gate, pause)
                if isinstance(exc, RateLimitedError) and pause is not None:
                    if not pause.kept:
                        asked = f"the server asks to wait {span(pause.seconds)}"
                        self._give_up(judge, gate.too_long(asked, waited, exc))
                    if waited < gate.longest:
                        continue
                await self._failed(judge, exc, attempt)
                attempt += 1
                continue
            used = result.input_tokens + result.output_tokens
            self._tell(judge, gate, gate.left(epoch, tokens, facts=note.facts, used=used))
            return result

    def _tell(self, judge: LLMProvider, gate: RateGate, pause: Pause | None) -> None:
        if pause is not None and pause.new and self.on_rate is not None:
            self.on_rate(RateNews(judge.model_identity, pause.seconds, gate.rate(),
                                  gate.control.limited))

    async def _checked_answer(
        self, judge: LLMProvider, place: CallPlace, repetition: int
    ) -> CallAnswer:
        """The provider's answer, refused unless every field is valid.

        A wrong answer is a bug of the provider, not a verdict: it stops the run (the
        answer is not journaled, so a fixed provider asks again on resume).
        """
        deadlines = self.deadlines
        watch = deadlines.watch() if deadlines is not None else None
        # The cancellations pending before the call: a `CancelledError` beyond them is the
        # run's (the deadline's watch counted them already).
        baseline = watch.cancelling if watch is not None else cancel_requests()
        answer = self._held_answer(judge, place, repetition)
        asked: asyncio.Task[CallAnswer] | None = None
        try:
            if self.direct and cancels_promptly(judge):
                result = await answer
            else:
                # A provider's coroutine runs as a task of its own, awaited through a
                # shield: a cancel (the deadline's, or the run's) then ends this wait at
                # once even when the provider swallows cancellation; the provider's task is
                # cancelled and left to end by itself (see `_abandon`).
                asked, ended = provider_task(answer)
                await ended
                result = asked.result() if asked.done() else await call_outcome(asked)
        except InvalidAnswerError as exc:
            raise PermanentProviderError(f"{judge!r} answered badly: {exc}") from exc
        except asyncio.CancelledError:
            if asked is not None:
                self._abandon(asked)
            if watch is not None and watch.expired():
                raise TransientProviderError(
                    f"{judge!r} gave no answer within call_timeout={self.timeout} s"
                ) from None
            if not stray_cancel(baseline):
                raise  # the run is being cancelled
            # Transient: a task cancelled inside the client says nothing about the texts.
            raise TransientProviderError(
                f"{judge!r} raised CancelledError though the run was not cancelled (a task "
                "inside the provider was cancelled elsewhere)"
            ) from None
        except TimeoutError as exc:
            # The provider's own: a slow answer may come next time.
            what = f"timed out ({describe(exc)})"
            raise TransientProviderError(f"{judge!r} {what}") from exc
        finally:
            if deadlines is not None and watch is not None:
                deadlines.end(watch)
        if isinstance(result, ComparisonResult):
            problem = answer_problem(result)
            if problem:
                raise PermanentProviderError(f"{judge!r} answered badly: {problem}")
            if result.winner == TIE and not self.ties:
                result = refused_tie(result)
        elif not place.texts and self.question is None:
            # A comparison answered with another kind (scores and orders were checked by
            # `_held_answer`, which knows the scale and the labels shown).
            raise PermanentProviderError(f"{judge!r} answered badly: {answer_problem(result)}")
        return storable(result)


    async def _held_answer(self, judge: LLMProvider, place: CallPlace,
                           repetition: int) -> CallAnswer:
        """The provider's answer, asked only while the run is still this process's.

        The journal is checked here, in the step that starts the provider's call, and not
        only before the first attempt: a process suspended during a retry's backoff, a wait
        for the rate limit or another task's commit, and woken after another process took
        the run over, must not send the call it had lined up.
        """
        self.journal.check()
        if place.texts:  # a ranking call: its order read once, here
            ranked = question_of(place)
            answer = await judge.answer(Request(ranked, self.criteria, repetition, self.ties,
                                                self.soft))
            return checked(answer, ranked.labels, self.ties)
        scored = self.question
        question: Question = (Compare(place.first, place.second) if scored is None
                              else Score(place.first, scored.scale, scored.inverse))
        answer = await judge.answer(Request(question, self.criteria, repetition, self.ties,
                                            self.soft))
        if scored is None:
            # Whatever came back is checked whole by `answer_problem` in `_checked_answer`.
            return answer
        # Checked here, where the scale is known.
        problem = pointwise_problem(answer, scored.scale)
        if problem:
            raise InvalidAnswerError(problem)
        return answer

    def _abandon(self, asked: asyncio.Future[CallAnswer]) -> None:
        """Give up a provider call that was cut off: cancel it, and never use its outcome.

        A provider that ignores the cancel keeps running until it returns by itself; what
        it returns or raises then is dropped (never journaled, never counted). It is held
        here until it ends, so it is not garbage-collected while pending.
        """
        if asked.done():
            retrieve(asked)
            return
        asked.cancel()
        self.abandoned.add(asked)
        asked.add_done_callback(self.abandoned.discard)
        asked.add_done_callback(retrieve)


def storable(result: CallAnswer) -> CallAnswer:
    """`result` with a `raw_response` every journal and cache can store (see `_storable`)."""
    raw = storable_raw(result.raw_response)
    return result if raw is result.raw_response else replace(result, raw_response=raw)


def _identity(judge: LLMProvider, ties: bool) -> str:
    # A call that offers a tie asks another question: its answers are cached apart.
    return judge.tie_identity() if ties else judge.model_identity
