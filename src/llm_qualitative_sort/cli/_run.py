"""Running a sort for the command line: the sorter, the display, the report, the summary."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from llm_qualitative_sort._inventory import RunInventory
from llm_qualitative_sort._postgres import is_dsn, redact
from llm_qualitative_sort._results import Ranking
from llm_qualitative_sort._storage import default_checkpoint_path
from llm_qualitative_sort.cache import ComparisonCache
from llm_qualitative_sort.cli._config import RunConfig, setting_names
from llm_qualitative_sort.cli._progress import make_progress
from llm_qualitative_sort.cli._report import write_cli_report
from llm_qualitative_sort.cli._retries import watched_retry
from llm_qualitative_sort.cli._settings import conflicts
from llm_qualitative_sort.cli._signals import until_signalled
from llm_qualitative_sort.errors import RunMismatchError
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.sorter import QualitativeSorter

SHOWN_CHARS = 150


class OutputClosed(Exception):
    """Whoever read the ranking stopped reading (`| head`); the run itself finished."""


@dataclass
class Plan:
    """A checked run, ready to start: every check that can precede the first call is done.

    `texts` is None for a resumed run (its items are stored); `ids` follow the sorted texts.
    """

    config: RunConfig
    provider: LLMProvider
    cache: ComparisonCache | None
    texts: list[str] | None
    ids: list[Any] = field(default_factory=list)


def checkpoint_path(config: RunConfig) -> Path | str:
    """The SQLite file or the PostgreSQL URI that keeps the run."""
    if not config.checkpoint:
        return default_checkpoint_path()
    return config.checkpoint if is_dsn(config.checkpoint) else Path(config.checkpoint)


def shown_checkpoint(config: RunConfig) -> str:
    """Where the run is kept, for messages: a URI is shown without its password."""
    target = checkpoint_path(config)
    return redact(target) if isinstance(target, str) else str(target)


def has_runs(target: Path | str) -> bool:
    """Whether runs may be kept there: a database always, a file if it exists."""
    return isinstance(target, str) or target.is_file()


async def execute(plan: Plan, out: TextIO) -> SortResult:
    """Run the plan (a new run or a resumed one) and report its result.

    Raises:
        OutputClosed: The ranking could not be printed in full (the report was written).
    """
    config = plan.config
    progress = make_progress(config.progress, plan.provider.estimate_cost)
    sorter = QualitativeSorter(
        plan.provider,
        criteria=config.criteria,
        strategy=config.strategy,
        elimination_count=config.elimination_count,
        comparison_rounds=config.comparison_rounds,
        budget=config.budget,
        top_k=config.top_k,
        stop_when_settled=bool(config.stop_when_settled),
        ties=bool(config.ties),
        max_concurrent_requests=config.concurrency,
        cache=plan.cache,
        on_progress=progress,
        seed=config.seed,
        checkpointer=checkpoint_path(config),
        retry_policy=watched_retry(progress.retrying),
        ranking=_ranking(config.ranking),
        wait_for_run=config.wait,
    )
    await _keep_settings(plan)
    _announce(plan)
    try:
        if plan.texts is None:
            result = await until_signalled(sorter.resume(config.run_id))
        else:
            result = await until_signalled(sorter.sort(plan.texts, run_id=config.run_id))
    finally:
        progress.close()
        if plan.cache is not None:
            await plan.cache.aclose()
    _finish(result, plan, out)
    return result


async def _keep_settings(plan: Plan) -> None:
    # Written before the first call, so that a stopped run resumes with its own settings.
    async with RunInventory.open(checkpoint_path(plan.config), create=True) as runs:
        if plan.texts is not None:
            await _check_reused_id(runs, plan)
        await runs.catalog.put(plan.config.run_id, plan.config.stored_settings(), plan.ids)


async def _check_reused_id(runs: RunInventory, plan: Plan) -> None:
    """A new run under the id of a stored one must be that same run (then it continues).

    Checked here, before its settings would overwrite the stored run's.
    """
    run_id = plan.config.run_id
    summary = await runs.summary(run_id)
    if summary is None or summary.state == "not started":
        return
    assert plan.texts is not None
    stored = await runs.values(run_id)
    if sorted(stored["items"]) != sorted(plan.texts):
        raise RunMismatchError(f"run {run_id!r} holds {len(stored['items'])} other items; "
                               "use a new run id for other items")
    given = {name: getattr(plan.config, name) for name in setting_names(fixed=True)}
    problems = conflicts(given, summary.settings)
    if problems:
        raise RunMismatchError(f"run {run_id!r} exists with other settings: "
                               + "; ".join(problems) + ". Use a new run id")


def _announce(plan: Plan) -> None:
    config = plan.config
    verb = "resuming" if plan.texts is None else "started"
    count = "" if plan.texts is None else f"{len(plan.texts)} items, "
    print(f"run {config.run_id} {verb} ({count}seed {config.seed}, "
          f"kept in {shown_checkpoint(config)})", file=sys.stderr, flush=True)


def _finish(result: SortResult, plan: Plan, out: TextIO) -> None:
    # The report first: a reader that closes the output early must not cost the report.
    report = write_cli_report(result, plan.config, plan.ids) if plan.config.out else None
    closed = False
    try:
        print_ranking(result, out)
        out.flush()
    except BrokenPipeError:
        closed = True
    print_summary(result, plan.config, report)
    if closed:
        raise OutputClosed


def print_ranking(result: SortResult, out: TextIO) -> None:
    """One line per item, best first; a tied rank is marked with "=" (3=, 3=)."""
    width = len(str(result.rankings[-1][0])) + 1 if result.rankings else 2
    for rank, group in result.rankings:
        mark = f"{rank}=" if len(group) > 1 else f"{rank}"
        for item in group:
            print(f"{mark:>{width}}  {_one_line(item)}", file=out)


def print_summary(result: SortResult, config: RunConfig, report: Path | None) -> None:
    """Counts, cost, the run id and where the run and the report were kept (to stderr)."""
    stats = result.statistics
    err = sys.stderr
    cost = "" if stats.estimated_cost is None else f", cost {stats.estimated_cost:.4f}"
    print(f"{stats.total_matches} matches in {stats.rounds} rounds, {stats.total_api_calls} "
          f"LLM calls ({stats.cache_hits} from cache){cost}, {stats.elapsed_time:.1f} s",
          file=err)
    print(f"run id {result.run_id} · checkpoint {shown_checkpoint(config)}", file=err)
    if report is not None:
        print(f"report written to {report}", file=err)


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…"


def ids_by_text(texts: Sequence[str], ids: Sequence[Any]) -> dict[str, Any]:
    """Each text's id, from ids listed in the order of the sorted texts."""
    ordered = sorted(texts)
    return dict(zip(ordered, ids, strict=True)) if len(ids) == len(ordered) else {}


def _ranking(name: str | None) -> Ranking | None:
    if name is None:
        return None
    return "bradley_terry" if name == "bradley_terry" else "wins"
