"""Running a sort for the command line: the sorter, the display, the report, the summary."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from llm_qualitative_sort.cli import _elapsed
from llm_qualitative_sort.cli._config import RunConfig, setting_names
from llm_qualitative_sort.cli._inventory import RunInventory, RunSummary
from llm_qualitative_sort.cli._progress import Tally, make_progress
from llm_qualitative_sort.cli._report import ids_by_text, write_cli_report
from llm_qualitative_sort.cli._retries import watched_retry
from llm_qualitative_sort.cli._settings import conflicts
from llm_qualitative_sort.cli._signals import until_signalled
from llm_qualitative_sort.cli._terminal import escaped, one_line
from llm_qualitative_sort.errors import RunMismatchError
from llm_qualitative_sort.models import SortResult, Statistics
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.reports._people import people_sentence
from llm_qualitative_sort.reports._words import EN
from llm_qualitative_sort.results.calibration import soft_text
from llm_qualitative_sort.results.events import plural
from llm_qualitative_sort.results.from_state import Ranking
from llm_qualitative_sort.results.phases import phases, phases_text
from llm_qualitative_sort.sorter import QualitativeSorter
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.stores.default import default_checkpoint_path
from llm_qualitative_sort.stores.postgres_connect import is_dsn, redact
from llm_qualitative_sort.tournament import STRATEGIES, scores_alone
from llm_qualitative_sort.tournament.checks import checkpoint_problem


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
    # The sorter's `prompt` and `context` (see `cli._prompt.load_prompt`).
    prompt: dict[str, Any] = field(default_factory=dict)
    # Each item's fields, parallel to `texts`, when the template shows some (else None).
    fields: list[dict[str, Any]] | None = None
    # People's labels (`--human`), items as indices into `texts` (None: none given).
    human: Any = None
    # `--adjust`: the covariates, and the records' fields when one of them is a field.
    adjust: list[str] | None = None
    adjust_fields: list[dict[str, Any]] | None = None


def checkpoint_path(config: RunConfig) -> Path | str:
    """The SQLite file or the PostgreSQL URI that keeps the run.

    Raises:
        UsageError: `--checkpoint` (or its setting) names a directory or another database.
    """
    target = config.checkpoint or default_checkpoint_path()
    problem = checkpoint_problem(target)
    if problem is not None:
        from llm_qualitative_sort.cli._exits import UsageError

        raise UsageError(f"--checkpoint {problem}")
    return target if is_dsn(target) else Path(target)


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
    started = time.perf_counter()
    config = plan.config
    unit, per_unit = _progress_unit(config)
    progress = make_progress(config.progress, plan.provider.estimate_cost, unit=unit,
                             per_unit=per_unit)
    sorter = QualitativeSorter(
        plan.provider,
        criteria=config.criteria,
        strategy=config.strategy_settings(),  # --strategy, --budget...: one settings object
        schedule=config.schedule,
        max_concurrent_requests=config.concurrency,
        cache=plan.cache,
        on_progress=progress,
        seed=config.seed,
        checkpointer=checkpoint_path(config),
        retry_policy=watched_retry(progress.retrying),
        ranking=_ranking(config.ranking),
        wait_for_run=None if config.wait == math.inf else config.wait,
        **plan.prompt,
    )
    # One item needs no comparison: its ranking is returned at once and nothing is stored.
    alone = plan.texts is not None and len(plan.texts) < 2
    earlier = None if alone else await _keep_settings(plan)
    before = _elapsed.elapsed_before(earlier)
    _announce(plan, earlier)
    try:
        if plan.texts is None:
            result = await until_signalled(sorter.resume(config.run_id))
        else:
            result = await until_signalled(sorter.sort(
                plan.texts, run_id=config.run_id, fields=plan.fields or plan.adjust_fields,
                human=plan.human, adjust=plan.adjust))
    except BaseException as error:
        if _elapsed.worked(error):  # a resume then counts this process's time too
            await _elapsed.record_quietly(lambda seconds: _keep_elapsed(plan, seconds),
                                          before + time.perf_counter() - started)
        raise
    finally:
        progress.close()
        if plan.cache is not None:
            await plan.cache.aclose()
    # The run's total, as the summary, `--out` and `report RUN_ID` all state it.
    result = _elapsed.total(result, before)
    if not alone:
        await _keep_elapsed(plan, result.statistics.elapsed_time)
    _finish(result, plan, out, progress.tally)
    return result


def _progress_unit(config: RunConfig) -> tuple[str, int]:
    """What the progress counts, and the calls of one.

    A pointwise run counts its texts (each scored once per repetition); a Swiss run with a
    pre-pass counts judgements (a text scored alone, or a match).
    """
    if scores_alone(config.strategy):
        return "text", config.repetitions or 1
    return ("judgement" if config.strategy == "swiss" and config.prepass else "match"), 1


async def _keep_elapsed(plan: Plan, elapsed: float) -> None:
    # `report RUN_ID` shows the elapsed time this sort reported, not the span of its saves
    # (nor the idle time between a stop and its resume).
    settings = {**plan.config.stored_settings(), "elapsed_time": elapsed}
    async with RunInventory.open(checkpoint_path(plan.config)) as runs:
        await runs.catalog.put(plan.config.run_id, settings, plan.ids)


async def _keep_settings(plan: Plan) -> RunSummary | None:
    """Store the run's settings; return what was stored of the run before (None: new)."""
    # Written before the first call, so that a stopped run resumes with its own settings.
    async with RunInventory.open(checkpoint_path(plan.config), create=True) as runs:
        summary = await runs.summary(plan.config.run_id)
        if plan.texts is not None:
            await _check_reused_id(runs, plan)
        before = _elapsed.elapsed_before(summary)
        kept = _elapsed.with_earlier(plan.config.stored_settings(), before)
        await runs.catalog.put(plan.config.run_id, kept, plan.ids)
    return summary


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


def _announce(plan: Plan, earlier: RunSummary | None) -> None:
    config = plan.config
    where = f"seed {config.seed}, kept in {shown_checkpoint(config)}"
    paid = 0 if earlier is None else earlier.calls
    if earlier is not None and earlier.state == "finished":
        text = (f"run {config.run_id} had finished ({where}): its result again, "
                f"nothing is called")
    elif plan.texts is None or paid:
        kept = f"; {plural(paid, 'call')} paid before, not paid again" if paid else ""
        text = f"run {config.run_id} resuming ({where}{kept})"
    elif len(plan.texts) < 2:
        text = f"run {config.run_id}: {plural(len(plan.texts), 'item')}, nothing to compare"
    else:
        text = f"run {config.run_id} started ({len(plan.texts)} items, {where})"
    print(escaped(text), file=sys.stderr, flush=True)


def _finish(result: SortResult, plan: Plan, out: TextIO, now: Tally) -> None:
    # The report first: a reader that closes the output early must not cost the report.
    report = write_cli_report(result, plan.config, plan.ids) if plan.config.out else None
    closed = False
    texts = [item for _, group in result.rankings for item in group]
    ids = ids_by_text(texts, plan.ids) if named_ids(plan.config.source) else {}
    try:
        print_ranking(result, out, ids)
        out.flush()
    except BrokenPipeError:
        closed = True
    print_summary(result, plan.config, report, now)
    if closed:
        raise OutputClosed


def print_ranking(result: SortResult, out: TextIO, ids: Mapping[str, Any] | None = None) -> None:
    """One line per item, best first; a tied rank is marked with "=" (3=, 3=).

    With `ids` (each text's id in the input), the id comes before the text, in brackets.
    """
    width = len(str(result.rankings[-1][0])) + 1 if result.rankings else 2
    shown = {text: f"[{one_line(str(i))}]" for text, i in (ids or {}).items()}
    id_width = max(map(len, shown.values()), default=0)
    # A pointwise run shows each text's score (0-1) before it.
    scores = {s.item: s.score for s in result.pointwise}
    for rank, group in result.rankings:
        mark = f"{rank}=" if len(group) > 1 else f"{rank}"
        for item in group:
            ident = f"{shown.get(item, ''):<{id_width}}  " if id_width else ""
            score = "" if not scores else (
                "   -   " if scores.get(item) is None else f"{scores[item]:.3f}  ")
            print(f"{mark:>{width}}  {score}{ident}{one_line(item)}", file=out)


def print_summary(result: SortResult, config: RunConfig, report: Path | None,
                  now: Tally | None = None) -> None:
    """Counts, cost, the run id and where the run and the report were kept (to stderr).

    `now` tallies the calls this process paid for; the rest of a resumed run's calls were
    paid before, and the summary says so rather than seem to have paid them again.
    """
    stats = result.statistics
    err = sys.stderr
    cost = "" if stats.estimated_cost is None else f", cost {stats.estimated_cost:.4f}"
    used = stats.input_tokens + stats.output_tokens
    if used:  # a judge that reports none (the mock) leaves the line as it was
        cost = f", {used:,} tokens ({result.tokens_per_text:,.0f} per text){cost}"
    found = phases(result)  # a pre-pass: its texts scored alone, then the matches
    played = (f"{plural(len(result.pointwise), 'text')} scored alone" if result.pointwise
              else f"{plural(found['prepass']['texts'], 'text')} scored alone and "
              f"{plural(found['swiss']['matches'], 'match')}" if found else
              plural(stats.total_matches, "match"))
    if result.ranking_calls:  # Swiss with group_size > 2: ranking calls, no match
        played = plural(len(result.ranking_calls), "ranking call")
    # Calls that count for neither side are said, never left to the reports alone.
    unsettled = "".join(f", {text}" for count, text in (
        (stats.failed_calls, f"{stats.failed_calls} without a verdict"),
        (stats.tied_calls, f"{stats.tied_calls} tied")) if count)
    calls = plural(stats.total_api_calls, "LLM call")
    print(f"{played} in {plural(stats.rounds, 'round')}, {calls} ({stats.cache_hits} from "
          f"cache{unsettled}){_split(stats, now)}{cost}, {stats.elapsed_time:.1f} s", file=err)
    both = phases_text(result)
    if both is not None:
        print(both, file=err)
    for line in (stats.early_stop and stats.early_stop.describe(),
                 soft_text(result.verdicts, stats.calibration, (
                     config.ranking or STRATEGIES[config.strategy].native_ranking) == "wins")):
        if line:
            print(line, file=err)
    if stats.rate_limited or stats.rate_wait:
        print(f"rate limit: {plural(stats.rate_limited, 'request')} answered 429 (not "
              f"failures), {stats.rate_wait:.1f} s waiting for the provider", file=err)
    print(people_sentence(result, EN), file=err)
    compared = sum(len(group) for _, group in result.rankings) > 1  # else nothing is stored
    kept = f"checkpoint {shown_checkpoint(config)}" if compared else "nothing to keep"
    print(escaped(f"run id {result.run_id} · {kept}"), file=err)
    if report is not None:
        print(escaped(f"report written to {report}"), file=err)


def _split(stats: Statistics, now: Tally | None) -> str:
    """": 30 paid now, 60 before" when part of the run was paid by an earlier process."""
    before = 0 if now is None else stats.total_api_calls - now.calls
    if now is None or before <= 0:
        return ""
    if not now.calls:
        return ", all paid before: nothing was called now"
    return f": {now.calls} paid now, {before} before"


def named_ids(source: Mapping[str, Any]) -> bool:
    """Whether the input named its items' ids (`--id-field`, `--id-column`).

    Ids are shown beside the texts then; line numbers, the ids by default, are not.
    """
    return bool(source.get("id_field") or source.get("id_column"))


def _ranking(name: str | None) -> Ranking | Literal["judge"] | None:
    if name is None:
        return None
    if name == "judge":  # the strategy's own order, even with --human
        return "judge"
    return "bradley_terry" if name == "bradley_terry" else "wins"
