"""Driving the tournament graph to its end: the stream, progress callbacks, stops.

`finish` plays a run (its `RunSetup`) on to its `SortResult`; `drive`
runs the graph (from its input, or on from its checkpoint) and returns the final state,
turning a failure into `RunStoppedError` with the reason and the run's id. `Tee` feeds
`QualitativeSorter.astream`'s queue and then the user's callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort._calls._cutoff import cancel_requests
from llm_qualitative_sort.errors import DamagedJournalError, RunDetached, RunStoppedError
from llm_qualitative_sort.graph import TournamentContext, TournamentGraph
from llm_qualitative_sort.graph.recovery import reroute_lost_step
from llm_qualitative_sort.graph.state import SETTINGS_KEYS
from llm_qualitative_sort.models import ProgressEvent, SortResult
from llm_qualitative_sort.prompts._run import prompt_label
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.panel import leaf_judges
from llm_qualitative_sort.results.events import progress_event
from llm_qualitative_sort.results.from_state import batch_discount, sort_result
from llm_qualitative_sort.results.labelled import stored_with_people
from llm_qualitative_sort.results.stops import stop_reason
from llm_qualitative_sort.running.setup import ProgressCallback, RunSetup
from llm_qualitative_sort.running.stored import input_saved
from llm_qualitative_sort.stores import RunJournal


async def finish(
    setup: RunSetup,
    graph: TournamentGraph,
    start: dict[str, Any] | None,
    config: RunnableConfig,
    stored: dict[str, Any],
    journal: RunJournal,
    started: float,
    human: dict[str, Any] | None = None,
) -> SortResult:
    """Play the run on to its end unless it has ended, and return its `SortResult`.

    `start` is a new run's input (None to go on from the checkpoint); `stored` the state
    stored so far; `started` when the caller began (`time.perf_counter()`); `human` people's
    labels given to this sort in their stored form (None: the run's own, if any).
    """
    run_id = str(config["configurable"]["thread_id"])
    judge = setup.provider.model_identity
    # Calls that name no judge are the first judge's (a single judge names none).
    started_by = str((start or stored).get("judge") or judge)
    # Not `snapshot.next`: it is empty too when the last task saved its writes before
    # a crash and its successors were never scheduled. Only the ranking node writes
    # `rankings`, so its presence is what marks a finished run.
    rate = (0, 0.0)
    if start is not None or "rankings" not in stored:
        context = TournamentContext(
            provider=setup.provider,
            max_concurrent_requests=setup.max_concurrent_requests,
            call_timeout=setup.call_timeout,
            cache=setup.cache,
            retry=setup.retry_policy,
            run_id=run_id,
            journal=journal,
            progress=setup.on_progress is not None,
            name_judge=started_by != judge,
            prompt=setup.prompt,
            human=human,
            anchor=False,  # the result is ranked below, as the sorter was asked
        )
        try:
            stored = await drive(graph, start, config, context,
                                 on_progress=setup.on_progress, provider=setup.provider,
                                 store_path=setup.store_path)
        finally:
            for live in context.live.values():
                live.close()  # no call goes on after the run returns or stops
        # The stream ends after LangGraph has saved the last checkpoint, which holds
        # the whole history: the journal's copy of this run is no longer needed.
        journal.forget(run_id)
        rate = context.rates.totals()
    elapsed = time.perf_counter() - started
    judges = leaf_judges(setup.provider)
    costs = {j.model_identity: j.estimate_cost for j in judges} if len(judges) > 1 else None
    if started_by != judge:  # taken over by another judge: the first one's prices are unknown
        costs = {**(costs or {judge: setup.provider.estimate_cost}), started_by: _unpriced}
    # Nothing reads the stored history after the result is built: it is released as the
    # result's matches are made, which lowers the run's peak memory.
    human = human if human is not None else stored.get("human")
    state = {key: stored[key] for key in ("items", *SETTINGS_KEYS) if key in stored}
    result = sort_result(stored, run_id, elapsed, setup.ranking, setup.provider.estimate_cost,
                         batch_discount=batch_discount(setup.provider),
                         judge=started_by, judge_costs=costs, prompt=prompt_label(setup.prompt),
                         verdicts="soft" if setup.settings.soft_verdicts else "hard",
                         release=True, rate=rate)
    return stored_with_people(result, state, setup.anchor, human)



def _unpriced(input_tokens: int, output_tokens: int) -> float | None:
    """The price function of a judge whose prices are not known."""
    return None



async def drive(
    graph: TournamentGraph,
    start: dict[str, Any] | None,
    config: RunnableConfig,
    context: TournamentContext,
    *,
    on_progress: ProgressCallback | None,
    provider: LLMProvider,
    store_path: Path | None,
) -> dict[str, Any]:
    """Run the graph to its end and return the final state.

    The final state comes from the stream ("values" of the keys a result needs), not
    from `aget_state`, which would rebuild the history from every stored checkpoint.
    """
    baseline = cancel_requests()
    try:
        final = await _stream(graph, start, config, context, on_progress)
        _stop_if_cancelled(baseline)
        if "rankings" not in final and await reroute_lost_step(graph, config):
            final = await _stream(graph, None, config, context, on_progress)
            _stop_if_cancelled(baseline)
        if "rankings" not in final:
            raise RuntimeError("the graph stopped without ranking the items")
    except (KeyboardInterrupt, asyncio.CancelledError) as exc:
        # A cancel (Ctrl-C under `asyncio.run`) may land before the input was written.
        saved = (start is None or isinstance(exc, KeyboardInterrupt)
                 or await _input_saved(graph, config))
        exc.add_note(f"run id {context.run_id!r}: resume with sorter.resume(run_id)" if saved
                     else f"run id {context.run_id!r}: stopped before its input was saved; "
                     f"start it again with sorter.sort(items, run_id={context.run_id!r})")
        exc.run_id = context.run_id  # type: ignore[union-attr]
        exc.input_saved = saved  # type: ignore[union-attr]
        raise
    except RunDetached:
        raise  # batch mode with detach: the batch is recorded, the run waits at the provider
    except Exception as exc:
        reason = stop_reason(exc, provider, context.journal, store_path)
        saved = start is None or await _input_saved(graph, config)
        first = exc.remedy if isinstance(exc, DamagedJournalError) else None
        raise RunStoppedError(reason, run_id=context.run_id, input_saved=saved,
                              first=first) from exc
    return final


async def _input_saved(graph: TournamentGraph, config: RunnableConfig) -> bool:
    """Whether a run that just stopped can be resumed: its input reached the store.

    A storage failure in a run's first moments (a file another process keeps locked, a
    full disk), or a cancel then, can stop it before LangGraph has written its input.
    Unreadable: assumed saved.
    """
    try:
        return await input_saved(graph, config)
    except BaseException:  # noqa: BLE001 - the stop's own reason is what matters
        return True


def _stop_if_cancelled(baseline: int) -> None:
    """Raise the `CancelledError` of a cancel the graph swallowed (still pending on the task).

    LangGraph awaits a task it has just cancelled with `CancelledError` suppressed (its
    stream's waiter, as `astream` ends): a cancel of the run's task (Ctrl-C) landing in that
    instant goes to that task, ends with it, and the stream returns as if none came.
    """
    if cancel_requests() > baseline:
        raise asyncio.CancelledError


async def _stream(
    graph: TournamentGraph,
    start: dict[str, Any] | None,
    config: RunnableConfig,
    context: TournamentContext,
    on_progress: ProgressCallback | None,
) -> dict[str, Any]:
    modes: list[Any] = ["values", "custom"] if on_progress is not None else ["values"]
    start_input: Any = start
    final: dict[str, Any] = {}
    stream: AsyncGenerator[Any, None] = graph.astream(  # type: ignore[assignment]
        start_input,
        config,
        context=context,
        stream_mode=modes,
        # A pointwise run's result reads its settings (its scale and question) too, and a
        # Swiss run's its pre-pass (whose scores its fit takes).
        output_keys=["items", "history", "rankings", "early_stop", "human", *SETTINGS_KEYS],
        durability="async",
    )
    # Close the stream here, not at garbage collection: when the callback raises,
    # the graph must finish its cleanup before the connections are closed.
    async with contextlib.aclosing(stream):
        async for mode, chunk in stream:
            if mode == "custom":
                assert on_progress is not None
                await _notify(on_progress, progress_event(chunk))
            else:
                final = chunk
    return final


async def _notify(callback: ProgressCallback, event: ProgressEvent) -> None:
    outcome = callback(event)
    if inspect.isawaitable(outcome):
        await outcome


class Tee:
    """Puts each event on a queue, then passes it to the user's callback, if any."""

    def __init__(
        self, queue: asyncio.Queue[ProgressEvent | None], then: ProgressCallback | None
    ) -> None:
        self._queue = queue
        self._then = then

    async def __call__(self, event: ProgressEvent) -> None:
        """Queue `event` for the stream, then pass it to the user's callback."""
        self._queue.put_nowait(event)
        if self._then is not None:
            await _notify(self._then, event)
