"""`QualitativeSorter`: the public entry point that drives the tournament graph."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import hashlib
import inspect
import os
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import RetryPolicy

from llm_qualitative_sort.cache import ComparisonCache
from llm_qualitative_sort.errors import (
    RunDetached,
    RunMismatchError,
    RunStoppedError,
    StorageError,
)
from llm_qualitative_sort.graph import TournamentContext, TournamentGraph, build_graph
from llm_qualitative_sort.graph.context import DEFAULT_CALL_TIMEOUT, DEFAULT_RETRY
from llm_qualitative_sort.graph.recovery import reroute_lost_step
from llm_qualitative_sort.graph.schedules import check_schedule
from llm_qualitative_sort.models import ProgressEvent, SortResult
from llm_qualitative_sort.providers._prompt_run import (
    check_prompt,
    check_same_prompt,
    prompt_label,
    prompt_state,
)
from llm_qualitative_sort.providers.base import LLMProvider, offers_ties
from llm_qualitative_sort.providers.panel import leaf_judges
from llm_qualitative_sort.providers.prompt_template import PromptTemplate
from llm_qualitative_sort.results.events import progress_event
from llm_qualitative_sort.results.from_state import (
    Ranking,
    batch_discount,
    sort_result,
    trivial_result,
)
from llm_qualitative_sort.results.stops import stop_reason
from llm_qualitative_sort.stores import RunJournal, store_for
from llm_qualitative_sort.stores.default import CHECKPOINT_VARIABLE, default_checkpointer
from llm_qualitative_sort.tournament import STRATEGIES
from llm_qualitative_sort.tournament.checks import (
    check_criteria,
    check_items,
    check_ranking,
    check_retry_policy,
    check_run_id,
    check_seed,
    check_settings,
    check_timeout,
    check_wait,
    checkpoint_problem,
)

ProgressCallback = Callable[[ProgressEvent], Awaitable[None] | None]
Checkpointer = str | os.PathLike[str] | BaseCheckpointSaver[Any] | None


class _Default:
    def __repr__(self) -> str:
        return "<default: embedded SQLite file>"


DEFAULT_CHECKPOINTER: Any = _Default()


class QualitativeSorter:
    """Ranks texts by a criterion with pairwise LLM judgements, in a tournament of your choice.

    Args:
        provider: The judge.
        criteria: What "better" means, in the user's words.
        strategy: "elimination" (the multi-elimination tournament, the default) or
            "swiss" (Swiss rounds on Bradley–Terry strengths: better rankings per call).
        elimination_count: Losses that eliminate (N); 1 single, 2 double elimination.
        comparison_rounds: Calls per match, a positive even number, half in each order;
            with strategy="swiss" also 1 (each item shown first in about half its calls).
            None (default) takes the strategy's own: 2 for elimination (both orders of
            every pair); 1 for Swiss, which ranks better per call that way.
        budget: Swiss only: the judgements a run may use (paid calls and cache hits); by
            default what elimination with N=2 and two calls per match would make, 2·(2n−1).
        top_k: Swiss only: refine the top K with the last part of the budget.
        stop_when_settled: Swiss only, with `top_k`: stop before the budget once the top K
            are separated from the rest (see `tournament.swiss.settle`).
        max_concurrent_requests: Upper bound on LLM calls in flight.
        call_timeout: Seconds one call may take before it counts as a transient failure
            (retried), at most 10**9; None for no bound.
        cache: Where to reuse answers already paid for.
        on_progress: Called (plain or async) with every `ProgressEvent`.
        seed: Fixes placement and pairing; None derives one from the run id (a fresh random
            id unless one is given), stored with the run.
        checkpointer: An SQLite file path, a PostgreSQL URI (`postgresql://...`, shared by
            several workers; needs the `postgres` extra), a LangGraph `BaseCheckpointSaver`,
            or None for memory only. By default `$LLM_QUALITATIVE_SORT_CHECKPOINT` if set,
            else an embedded SQLite file (see `default_checkpoint_path`). An empty string,
            a directory, or a URI of another database (mysql://, sqlite:///) is refused
            (`StorageError`) when the sorter is made.
        retry_policy: How transient provider failures are retried, per call: a LangGraph
            `RetryPolicy` (checked when the sorter is made: max_attempts >= 1, intervals
            finite and >= 0, backoff_factor from 1 to 100).
        ranking: "wins" ranks by matches won; "bradley_terry" by the strengths in
            `SortResult.scores`, fitted to the same calls (no extra call). None (default)
            takes the strategy's own: wins for elimination, Bradley–Terry for Swiss.
        wait_for_run: A run is held by one process at a time. When another holds it,
            wait up to this many seconds for it to let go (None: as long as it takes);
            0 raises `RunLockedError` at once.
        schedule: "rounds" (default: each round starts when the last one ends; the result
            depends on the seed alone) or "pipelined" (elimination only, live calls: a
            bracket's players are paired as soon as they are free, so no request slot waits
            for a round's slowest call; the pairings depend on completion order and are
            logged durably, so a resumed run continues exactly).
        allow_judge_change: Let `resume` (or `sort` with the run's id) go on with a judge
            other than the one that started the run (another `model_identity`). Off by
            default, and then refused before any call: the ranking would mix two judges'
            verdicts. When allowed, every call the new judge makes is recorded under its
            name, so the audit credits each call to the judge that made it; the calls of
            the first judge are priced as unknown (its prices are not stored).
        ties: Let the judge answer that two texts are equally good (off by default). The
            prompt and the answer's schema then offer "tie"; a tied call is half a win for
            each side in the Bradley–Terry fit, and counts for neither in a match's verdict
            (a match whose calls tie overall is a draw). Without it, a provider that answers
            "tie" gets no verdict for that call (counted in `failed_calls`).
        prompt: The judge's prompt, a `PromptTemplate` (None: the default, the same as
            `PromptTemplate.builtin("en")`). Checked with `context` when the sorter is made;
            its calls are cached apart from other prompts', and the run stores it. Providers
            that build their messages themselves (a custom `LLMProvider`, the mock) ignore
            its text.
        context: The mapping a template reads as `{{ context.KEY }}` (the question, a
            reference answer, a rubric...): plain JSON data, stored with the run.
        verdicts: "hard" (default) counts each call as its verdict (a win, a loss, or
            half of each for a tie); "soft" makes the Bradley–Terry fit take the judge's
            probability that the first-shown text wins (read from its log-probabilities,
            `RoundResult.probability`) as the call's outcome, where the judge returned one;
            a call without one stays a hard verdict. It changes the Swiss pairings and
            every ranking made from the fit; elimination's matches are still won by votes.
        allow_prompt_change: Let a resume go on with another template or context than the
            run's (refused by default, before any call, like another judge).

    Example:
        >>> import asyncio
        >>> from llm_qualitative_sort import MockLLMProvider
        >>> sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger",
        ...                            seed=1, checkpointer=None)
        >>> result = asyncio.run(sorter.sort(["3", "10", "7"]))
        >>> result.rankings[0]
        (1, ['10'])
    """

    def __init__(
        self,
        provider: LLMProvider,
        *,
        criteria: str,
        strategy: str = "elimination",
        elimination_count: int = 2,
        comparison_rounds: int | None = None,
        budget: int | None = None,
        top_k: int | None = None,
        stop_when_settled: bool = False,
        max_concurrent_requests: int = 10,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        cache: ComparisonCache | None = None,
        on_progress: ProgressCallback | None = None,
        seed: int | None = None,
        checkpointer: Checkpointer = DEFAULT_CHECKPOINTER,
        retry_policy: RetryPolicy = DEFAULT_RETRY,
        ranking: Ranking | None = None,
        wait_for_run: float | None = 0.0,
        schedule: str = "rounds",
        allow_judge_change: bool = False,
        ties: bool = False,
        prompt: PromptTemplate | None = None,
        context: Mapping[str, Any] | None = None,
        allow_prompt_change: bool = False,
        verdicts: str = "hard",
    ) -> None:
        if not isinstance(provider, LLMProvider):
            raise TypeError(f"provider must be an LLMProvider, got {type(provider).__name__}")
        check_criteria(criteria)
        self.settings = check_settings(
            strategy=strategy, elimination_count=elimination_count,
            comparison_rounds=comparison_rounds, max_concurrent_requests=max_concurrent_requests,
            budget=budget, top_k=top_k, stop_when_settled=stop_when_settled, ties=ties,
            verdicts=verdicts,
        )
        if ties and not offers_ties(provider):
            raise TypeError(f"ties=True: {type(provider).__name__}.compare_call takes no `ties` "
                            "keyword, so it cannot be offered a tie; add `ties: bool = False`")
        check_seed(seed)
        check_timeout(call_timeout)
        if cache is not None and not isinstance(cache, ComparisonCache):
            raise TypeError(f"cache must be a ComparisonCache, got {type(cache).__name__}")
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable")
        self.ranking: Ranking = check_ranking(ranking, STRATEGIES[strategy].native_ranking)
        self.schedule = check_schedule(schedule, STRATEGIES[strategy], provider)
        check_wait(wait_for_run)
        if not isinstance(allow_judge_change, bool):
            raise TypeError("allow_judge_change must be a bool, got "
                            f"{type(allow_judge_change).__name__}")
        self.allow_judge_change = allow_judge_change
        self.prompt = check_prompt(prompt, context)
        if not isinstance(allow_prompt_change, bool):
            raise TypeError("allow_prompt_change must be a bool, got "
                            f"{type(allow_prompt_change).__name__}")
        self.allow_prompt_change = allow_prompt_change
        check_retry_policy(retry_policy)
        self.provider = provider
        self.criteria = criteria
        self.max_concurrent_requests = max_concurrent_requests
        self.call_timeout = call_timeout
        self.cache = cache
        self.on_progress = on_progress
        self.seed = seed
        self.retry_policy = retry_policy
        self.wait_for_run = wait_for_run
        named = "checkpointer"
        if checkpointer is DEFAULT_CHECKPOINTER:
            checkpointer = default_checkpointer()
            named = f"the default checkpointer (${CHECKPOINT_VARIABLE} or the data directory)"
        problem = checkpoint_problem(checkpointer)
        if problem is not None:
            raise StorageError(f"{named} {problem}")
        self._store = store_for(checkpointer)

    @property
    def strategy(self) -> str:
        """The tournament strategy's name."""
        return self.settings.strategy

    @property
    def elimination_count(self) -> int:
        """Losses that eliminate (elimination)."""
        return self.settings.elimination_count

    @property
    def comparison_rounds(self) -> int:
        """Calls per match."""
        return self.settings.comparison_rounds

    async def sort(self, items: Sequence[str], run_id: str | None = None) -> SortResult:
        """Rank `items`, best first.

        With the `run_id` of an unfinished run of the same items this continues that run; of
        a finished one, it returns the stored result without any LLM call.

        Raises:
            TypeError, ValueError: Bad items, before any call.
            RunMismatchError: `run_id` names a run of other items or settings, or one
                started by another judge (see `allow_judge_change`).
            RunLockedError: Another process holds the run (see `wait_for_run`).
            StorageError: The checkpoint or journal store cannot be used, before any call.
            RunStoppedError: The run stopped (provider failure, callback error, a journal
                write failure); resume it.
        """
        started = time.perf_counter()
        texts = check_items(items)
        self.provider.check_items(texts)
        run_id = check_run_id(run_id) if run_id is not None else uuid.uuid4().hex
        if len(texts) < 2:
            return trivial_result(texts, run_id, time.perf_counter() - started)
        STRATEGIES[self.strategy].check(self.settings, len(texts))
        async with self._store.open(run_id, wait=self.wait_for_run) as (saver, journal):
            graph = build_graph(saver)
            config: RunnableConfig = {"configurable": {"thread_id": run_id}}
            stored = await _stored_run(graph, config)
            start: dict[str, Any] | None = None
            if stored:
                self._check_same_run(stored, texts, run_id)
            else:
                start = {
                    "items": texts,
                    "criteria": self.criteria,
                    **self._stored_settings(),
                    "seed": self.seed if self.seed is not None else _seed_for(run_id),
                    "judge": self.provider.model_identity,
                    **prompt_state(self.prompt),
                }
            return await self._finish(graph, start, config, stored, journal, started)

    async def astream(
        self, items: Sequence[str], run_id: str | None = None
    ) -> AsyncIterator[ProgressEvent | SortResult]:
        """Like `sort`, but yield every `ProgressEvent` as it happens, then the `SortResult`.

        The sort runs as a task that feeds an unbounded queue, so a slow consumer never
        holds up LLM calls. `on_progress`, if set, is still called. Closing the iterator
        early cancels the run (resume it with its `run_id`).

        Example:
            >>> import asyncio
            >>> from llm_qualitative_sort import MockLLMProvider
            >>> sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger",
            ...                            seed=1, checkpointer=None)
            >>> async def last():
            ...     return [x async for x in sorter.astream(["3", "10", "7"])][-1]
            >>> asyncio.run(last()).rankings[0]
            (1, ['10'])
        """
        events: asyncio.Queue[ProgressEvent | None] = asyncio.Queue()
        worker = copy.copy(self)  # shares the store, so in-memory runs stay resumable
        worker.on_progress = _Tee(events, self.on_progress)
        task = asyncio.create_task(worker.sort(items, run_id))
        task.add_done_callback(lambda _: events.put_nowait(None))
        try:
            while (item := await events.get()) is not None:
                yield item
            yield task.result()
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def resume(self, run_id: str) -> SortResult:
        """Continue the unfinished run `run_id` (or return its result if it finished).

        Raises:
            KeyError: No run with this id in this sorter's checkpointer.
            RunMismatchError: The run has other settings, or was started by another judge
                (see `allow_judge_change`); before any call.
            RunLockedError: Another process holds the run (see `wait_for_run`).
        """
        started = time.perf_counter()
        check_run_id(run_id)
        async with self._store.open(run_id, wait=self.wait_for_run) as (saver, journal):
            graph = build_graph(saver)
            config: RunnableConfig = {"configurable": {"thread_id": run_id}}
            stored = await _stored_run(graph, config)
            if not stored:
                raise KeyError(
                    f"no run {run_id!r} in {self._where()} (a run killed before its input "
                    "was saved must be started again with sort(items, run_id=...))"
                )
            self._check_same_run(stored, stored["items"], run_id)
            return await self._finish(graph, None, config, stored, journal, started)

    async def _finish(
        self,
        graph: TournamentGraph,
        start: dict[str, Any] | None,
        config: RunnableConfig,
        stored: dict[str, Any],
        journal: RunJournal,
        started: float,
    ) -> SortResult:
        run_id = str(config["configurable"]["thread_id"])
        judge = self.provider.model_identity
        # Calls that name no judge are the first judge's (a single judge names none).
        started_by = str((start or stored).get("judge") or judge)
        # Not `snapshot.next`: it is empty too when the last task saved its writes before
        # a crash and its successors were never scheduled. Only the ranking node writes
        # `rankings`, so its presence is what marks a finished run.
        if start is not None or "rankings" not in stored:
            context = TournamentContext(
                provider=self.provider,
                max_concurrent_requests=self.max_concurrent_requests,
                call_timeout=self.call_timeout,
                cache=self.cache,
                retry=self.retry_policy,
                run_id=run_id,
                journal=journal,
                progress=self.on_progress is not None,
                name_judge=started_by != judge,
                prompt=self.prompt,
            )
            try:
                stored = await self._drive(graph, start, config, context)
            finally:
                for live in context.live.values():
                    live.close()  # no call goes on after the run returns or stops
            # The stream ends after LangGraph has saved the last checkpoint, which holds
            # the whole history: the journal's copy of this run is no longer needed.
            journal.forget(run_id)
        elapsed = time.perf_counter() - started
        judges = leaf_judges(self.provider)
        costs = {j.model_identity: j.estimate_cost for j in judges} if len(judges) > 1 else None
        if started_by != judge:  # taken over by another judge: the first one's prices are unknown
            costs = {**(costs or {judge: self.provider.estimate_cost}), started_by: _unpriced}
        return sort_result(stored, run_id, elapsed, self.ranking, self.provider.estimate_cost,
                           batch_discount=batch_discount(self.provider),
                           judge=started_by, judge_costs=costs, prompt=prompt_label(self.prompt),
                           verdicts=self.settings.verdicts)

    async def _drive(
        self,
        graph: TournamentGraph,
        start: dict[str, Any] | None,
        config: RunnableConfig,
        context: TournamentContext,
    ) -> dict[str, Any]:
        """Run the graph to its end and return the final state.

        The final state comes from the stream ("values" of the keys a result needs), not
        from `aget_state`, which would rebuild the history from every stored checkpoint.
        """
        try:
            final = await self._stream(graph, start, config, context)
            if "rankings" not in final and await reroute_lost_step(graph, config):
                final = await self._stream(graph, None, config, context)
            if "rankings" not in final:
                raise RuntimeError("the graph stopped without ranking the items")
        except (KeyboardInterrupt, asyncio.CancelledError) as exc:
            exc.add_note(f"run id {context.run_id!r}: resume with sorter.resume(run_id)")
            exc.run_id = context.run_id  # type: ignore[union-attr]
            raise
        except RunDetached:
            raise  # batch mode with detach: the batch is recorded, the run waits at the provider
        except Exception as exc:
            reason = stop_reason(exc, self.provider, context.journal, self._store.path)
            raise RunStoppedError(reason, run_id=context.run_id) from exc
        return final

    async def _stream(
        self,
        graph: TournamentGraph,
        start: dict[str, Any] | None,
        config: RunnableConfig,
        context: TournamentContext,
    ) -> dict[str, Any]:
        modes: list[Any] = ["values", "custom"] if self.on_progress is not None else ["values"]
        start_input: Any = start
        final: dict[str, Any] = {}
        stream: AsyncGenerator[Any, None] = graph.astream(  # type: ignore[assignment]
            start_input,
            config,
            context=context,
            stream_mode=modes,
            output_keys=["items", "history", "rankings", "early_stop"],
            durability="async",
        )
        # Close the stream here, not at garbage collection: when the callback raises,
        # the graph must finish its cleanup before the connections are closed.
        async with contextlib.aclosing(stream):
            async for mode, chunk in stream:
                if mode == "custom":
                    await self._notify(chunk)
                else:
                    final = chunk
        return final

    async def _notify(self, payload: dict[str, Any]) -> None:
        assert self.on_progress is not None
        outcome = self.on_progress(progress_event(payload))
        if inspect.isawaitable(outcome):
            await outcome

    def _check_same_run(self, stored: dict[str, Any], texts: Sequence[str], run_id: str) -> None:
        if sorted(texts) != sorted(stored["items"]):
            raise RunMismatchError(
                f"run {run_id!r} holds {len(stored['items'])} other items; "
                "use a new run id for other items"
            )
        self._check_same_judge(stored, run_id)
        check_same_prompt(stored, self.prompt, run_id, self.allow_prompt_change)
        expected: dict[str, Any] = {"criteria": self.criteria, **self._stored_settings()}
        if self.seed is not None:
            expected["rng_seed"] = self.seed
        if stored.get("schedule", "rounds") != self.schedule:
            raise RunMismatchError(
                f"run {run_id!r} was started with schedule={stored.get('schedule', 'rounds')!r}"
                f", not {self.schedule!r}")
        if stored.get("verdicts", "hard") != self.settings.verdicts:
            raise RunMismatchError(f"run {run_id!r} was started with verdicts="
                                   f"{stored.get('verdicts', 'hard')!r}, not "
                                   f"{self.settings.verdicts!r}")
        stored_ties = stored.get("ties", False)
        if stored_ties != self.settings.ties:
            raise RunMismatchError(f"run {run_id!r} was started with ties={stored_ties!r}, "
                                   f"not {self.settings.ties!r}")
        for name, value in expected.items():
            if name in stored and stored[name] != value:
                raise RunMismatchError(
                    f"run {run_id!r} was started with {name}={stored[name]!r}, "
                    f"not {value!r}"
                )

    def _check_same_judge(self, stored: dict[str, Any], run_id: str) -> None:
        """Refuse to go on with a judge other than the one that started the run.

        Its verdicts would be mixed with the first judge's into one ranking (and the audit
        would credit them all to one judge). Runs stored before the judge was recorded
        are not checked.
        """
        started_by, judge = stored.get("judge"), self.provider.model_identity
        if started_by is None or started_by == judge:
            return
        if not self.allow_judge_change:
            raise RunMismatchError(
                f"run {run_id!r} was started by the judge {started_by!r}, not {judge!r}: "
                "resume it with the judge that started it, start a new run, or pass "
                "allow_judge_change=True to go on with this judge (the ranking then mixes "
                "both judges' verdicts)"
            )


    def _stored_settings(self) -> dict[str, Any]:
        """The settings a run keeps in its state (and must keep when resumed)."""
        settings = dataclasses.asdict(self.settings)
        if self.schedule != "rounds":  # runs stored before schedules existed have none
            settings["schedule"] = self.schedule
        if self.strategy != "swiss":  # Swiss-only settings are not stored for other runs
            for name in ("budget", "top_k", "stop_when_settled"):
                del settings[name]
        if not self.settings.ties:  # runs without ties store what they always did
            del settings["ties"]
        if self.settings.verdicts == "hard":  # likewise runs with hard verdicts
            del settings["verdicts"]
        return settings

    def _where(self) -> str:
        return self._store.where


class _Tee:
    """Puts each event on a queue, then passes it to the user's callback, if any."""

    def __init__(
        self, queue: asyncio.Queue[ProgressEvent | None], then: ProgressCallback | None
    ) -> None:
        self._queue = queue
        self._then = then

    async def __call__(self, event: ProgressEvent) -> None:
        self._queue.put_nowait(event)
        if self._then is not None:
            outcome = self._then(event)
            if inspect.isawaitable(outcome):
                await outcome


async def _stored_run(graph: TournamentGraph, config: RunnableConfig) -> dict[str, Any]:
    """The stored state of a run, or {} if none was saved.

    A process killed right after starting can leave a checkpoint whose input writes never
    reached the disk; its items read back empty, and it counts as not started.
    """
    values = (await graph.aget_state(config)).values
    return dict(values) if values.get("items") else {}


def _unpriced(input_tokens: int, output_tokens: int) -> float | None:
    """The price function of a judge whose prices are not known."""
    return None


def _seed_for(run_id: str) -> int:
    """The seed of a run started without one, derived from its id.

    Not drawn at random: a run killed before its input reached the disk is started again
    under the same id, and must pair as before so that its journaled calls replay.
    """
    digest = hashlib.sha256(f"llm-qualitative-sort/seed/{run_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
