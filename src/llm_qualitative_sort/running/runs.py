"""Starting and resuming a run of a `QualitativeSorter`: the bodies of `sort` and `resume`.

`sort_items` checks the items, opens the run in the sorter's store and starts it (or goes on
with the stored run of that id); `resume_run` goes on with a stored run. Both end in
`drive.finish`. `asking` is the sorter a run uses, its prompt showing the items' fields;
`plan_of` what that sorter asks of a run (`stored.RunPlan`).
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort.errors import UnknownRunError
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.prompts._run import with_fields
from llm_qualitative_sort.results.from_state import trivial_result
from llm_qualitative_sort.running.drive import finish
from llm_qualitative_sort.running.stored import RunPlan, stored_run
from llm_qualitative_sort.stores.base import Settling
from llm_qualitative_sort.tournament import strategy_class
from llm_qualitative_sort.tournament.checks import check_items, check_run_id

if TYPE_CHECKING:
    from llm_qualitative_sort.sorter import QualitativeSorter


def plan_of(sorter: QualitativeSorter) -> RunPlan:
    """What `sorter` asks of a run, beside its items."""
    return RunPlan(sorter.criteria, sorter.settings, sorter.schedule, sorter.seed,
                   sorter.provider.model_identity, sorter.prompt, sorter.allow_judge_change,
                   sorter.allow_prompt_change)


def asking(sorter: QualitativeSorter, texts: Sequence[str], fields: Any) -> QualitativeSorter:
    """The sorter, its prompt showing the fields of `texts` (checked; None: none)."""
    worker = copy.copy(sorter)  # shares the store, so in-memory runs stay resumable
    worker.prompt = with_fields(sorter.prompt, texts, fields)
    return worker


async def sort_items(sorter: QualitativeSorter, items: Sequence[str], run_id: str | None,
                     fields: Sequence[Mapping[str, Any]] | None) -> SortResult:
    """`QualitativeSorter.sort`: rank `items`, or go on with the run `run_id` of them."""
    started = time.perf_counter()
    texts = check_items(items)
    worker = asking(sorter, texts, fields)
    sorter.provider.check_items(texts)
    run_id = check_run_id(run_id) if run_id is not None else uuid.uuid4().hex
    if len(texts) < 2:
        return trivial_result(texts, run_id, time.perf_counter() - started)
    strategy_class(sorter.settings).check(sorter.settings, len(texts))
    plan = plan_of(worker)
    async with sorter._store.open(run_id, wait=sorter.wait_for_run) as (saver, journal):
        graph = build_graph(saver)
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        stored = await stored_run(graph, config)
        if stored:
            plan.check_same_run(stored, texts, run_id)
        start = None if stored else plan.start(texts, run_id)
        if start is not None and isinstance(saver, Settling):
            journal.expect_input(run_id)  # its saver says when the input is saved
        return await finish(worker, graph, start, config, stored, journal, started)


async def resume_run(sorter: QualitativeSorter, run_id: str) -> SortResult:
    """`QualitativeSorter.resume`: go on with the stored run `run_id`."""
    started = time.perf_counter()
    check_run_id(run_id)
    async with sorter._store.open(run_id, wait=sorter.wait_for_run) as (saver, journal):
        graph = build_graph(saver)
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        stored = await stored_run(graph, config)
        if not stored:
            raise UnknownRunError(
                f"no run {run_id!r} in {sorter._store.where} (a run killed before its input "
                "was saved must be started again with sort(items, run_id=...))"
            )
        # The run's own fields, when this sorter's template shows any.
        shown = (stored.get("fields") or None) if sorter.prompt.template.field_keys else None
        worker = asking(sorter, stored["items"], shown)
        plan_of(worker).check_same_run(stored, stored["items"], run_id)
        return await finish(worker, graph, None, config, stored, journal, started)
