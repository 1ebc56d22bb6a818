"""Starting and resuming a run of a `QualitativeSorter`: the bodies of `sort` and `resume`.

A sorter hands its runs a `setup.RunSetup` (its store, judge and settings), made afresh for
each call. `sort_items` checks the items, opens the run in the store and starts it (or goes on
with the stored run of that id); `resume_run` goes on with a stored run. Both end in
`drive.finish`, with the setup whose prompt shows the items' fields (`RunSetup.asking`).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort.errors import UnknownRunError
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.results.from_state import trivial_result
from llm_qualitative_sort.results.labelled import checked_human, within_budget
from llm_qualitative_sort.running.drive import finish
from llm_qualitative_sort.running.setup import RunSetup
from llm_qualitative_sort.running.stored import stored_run
from llm_qualitative_sort.stores.base import Settling
from llm_qualitative_sort.tournament import strategy_class
from llm_qualitative_sort.tournament.checks import check_items, check_run_id


async def sort_items(setup: RunSetup, items: Sequence[str], run_id: str | None,
                     fields: Sequence[Mapping[str, Any]] | None,
                     human: Any = None) -> SortResult:
    """`QualitativeSorter.sort`: rank `items`, or go on with the run `run_id` of them.

    `human` is people's labels as `sort` takes them, checked here against the items.
    """
    started = time.perf_counter()
    texts = check_items(items)
    worker = setup.asking(texts, fields)
    if human is not None:
        worker = dataclasses.replace(worker, human=checked_human(human, texts))
    setup.provider.check_items(texts)
    run_id = check_run_id(run_id) if run_id is not None else uuid.uuid4().hex
    if len(texts) < 2:
        return trivial_result(texts, run_id, time.perf_counter() - started)
    strategy_class(setup.settings).check_texts(setup.settings, texts, setup.criteria)
    within_budget(setup.settings, len(texts), worker.human)  # refused before any call
    plan = worker.plan()
    async with setup.store.open(run_id, wait=setup.wait_for_run) as (saver, journal):
        graph = build_graph(saver)
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        stored = await stored_run(graph, config)
        if stored:
            plan.check_same_run(stored, texts, run_id)
        start = None if stored else plan.start(texts, run_id)
        if start is not None and isinstance(saver, Settling):
            journal.expect_input(run_id)  # its saver says when the input is saved
        return await finish(worker, graph, start, config, stored, journal, started,
                            worker.canonical_human(texts))


async def resume_run(setup: RunSetup, run_id: str) -> SortResult:
    """`QualitativeSorter.resume`: go on with the stored run `run_id`."""
    started = time.perf_counter()
    check_run_id(run_id)
    async with setup.store.open(run_id, wait=setup.wait_for_run) as (saver, journal):
        graph = build_graph(saver)
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        stored = await stored_run(graph, config)
        if not stored:
            raise UnknownRunError(
                f"no run {run_id!r} in {setup.store.where} (a run killed before its input "
                "was saved must be started again with sort(items, run_id=...))"
            )
        # The run's own fields, when this sorter's template shows any.
        shown = (stored.get("fields") or None) if setup.prompt.template.field_keys else None
        worker = setup.asking(stored["items"], shown)
        worker.plan().check_same_run(stored, stored["items"], run_id)
        return await finish(worker, graph, None, config, stored, journal, started)
