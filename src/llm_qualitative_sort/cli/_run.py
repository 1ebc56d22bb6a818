"""Running a sort for the command line: the sorter, the display, the report, the summary."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from llm_qualitative_sort._storage import default_checkpoint_path
from llm_qualitative_sort.cache import FileCache
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._progress import make_progress
from llm_qualitative_sort.cli._providers import make_provider
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports import write_report
from llm_qualitative_sort.sorter import QualitativeSorter

SHOWN_CHARS = 150


async def execute(config: RunConfig, items: Sequence[str] | None, out: TextIO) -> SortResult:
    """Sort `items` (or resume `config.run_id` when `items` is None) and report the result."""
    cache = FileCache(config.cache_dir) if config.cache_dir else None
    progress = make_progress(config.progress)
    sorter = QualitativeSorter(
        make_provider(config),
        criteria=config.criteria,
        elimination_count=config.elimination_count,
        comparison_rounds=config.comparison_rounds,
        max_concurrent_requests=config.concurrency,
        cache=cache,
        on_progress=progress,
        seed=config.seed,
        checkpointer=checkpoint_path(config),
    )
    try:
        if items is None:
            result = await sorter.resume(config.run_id)
        else:
            result = await sorter.sort(items, run_id=config.run_id)
    finally:
        progress.close()
        if cache is not None:
            cache.close()
    print_ranking(result, out)
    print_summary(result, config, out)
    return result


def checkpoint_path(config: RunConfig) -> Path:
    """The SQLite file that keeps the run."""
    return Path(config.checkpoint) if config.checkpoint else default_checkpoint_path()


def print_ranking(result: SortResult, out: TextIO) -> None:
    """One line per item, best first; a tied rank is marked with "=" (3=, 3=)."""
    width = len(str(result.rankings[-1][0])) + 1 if result.rankings else 2
    for rank, group in result.rankings:
        mark = f"{rank}=" if len(group) > 1 else f"{rank}"
        for item in group:
            print(f"{mark:>{width}}  {_one_line(item)}", file=out)


def print_summary(result: SortResult, config: RunConfig, out: TextIO) -> None:
    """Counts, the run id and where the run and the report were kept (to stderr)."""
    stats = result.statistics
    err = sys.stderr
    print(f"{stats.total_matches} matches in {stats.rounds} rounds, {stats.total_api_calls} "
          f"LLM calls ({stats.cache_hits} from cache), {stats.elapsed_time:.1f} s", file=err)
    print(f"run id {result.run_id} · checkpoint {checkpoint_path(config)}", file=err)
    if config.out:
        path = write_report(result, config.out, config.settings())
        print(f"report written to {path}", file=err)
    out.flush()


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1] + "…"
