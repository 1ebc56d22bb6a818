"""A run whose journal disk fills up, then gets space back (runs inside its own tmpfs).

Usage: python full_disk_worker.py CONFIG_JSON

At call `fill_at_call` the mock fills the disk (a file written until ENOSPC); the run must
stop. The worker then counts the rows the journal kept, deletes the filler and resumes, and
writes the figures to `out`.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
)
from llm_qualitative_sort.stores.journal_file import journal_counts


class FillingMock(MockLLMProvider):
    def __init__(self, filler: Path, fill_at: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.filler, self.fill_at = filler, fill_at

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        if self.calls == self.fill_at:
            fill(self.filler)
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def fill(path: Path) -> None:
    with path.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc


def rows(journal: Path) -> int:
    conn = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        run_ids = [row[0] for row in conn.execute("SELECT DISTINCT run_id FROM calls")]
    finally:
        conn.close()
    counts = [journal_counts(journal, run_id) for run_id in run_ids]
    return sum(c["calls"] + c["cache_hits"] for c in counts)


async def main(config: dict[str, Any]) -> None:
    filler = Path(config["disk"]) / "filler"
    provider = FillingMock(filler, config["fill_at_call"], seed=config["mock_seed"],
                           latency=0.001)
    checkpoint = Path(config["checkpoint"])

    def sorter() -> QualitativeSorter:
        return QualitativeSorter(provider, criteria="larger", seed=config["seed"],
                                 checkpointer=checkpoint,
                                 max_concurrent_requests=config["concurrency"])

    try:
        await sorter().sort(config["items"], run_id="full")
    except RunStoppedError as stop:
        message = str(stop)
    else:
        raise AssertionError("the run did not stop on a full disk")
    paid_before = provider.calls
    saved = rows(checkpoint.with_name("runs.journal.sqlite3"))
    provider.fill_at = -1
    os.remove(filler)
    result = await sorter().resume("full")
    out = {"message": message, "paid_before": paid_before, "saved": saved,
           "paid_total": provider.calls, "rankings": result.rankings}
    Path(config["out"]).write_text(json.dumps(out))


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
