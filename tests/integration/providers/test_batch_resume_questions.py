"""A batch collected by a resumed run reads each answer as its request asked.

Each request's record in the batch journal names its question (a comparison offering a
tie here); records written before they named it (four fields a request) read as their
round's question. Either way the resumed run gives the calls of an uninterrupted one.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from _batch_setup import batch_provider, batch_server
from _setup import hidden_scores, make_items
from test_batch_sort import calls_of, sorter

from llm_qualitative_sort import BatchOptions, RunDetached, Swiss
from llm_qualitative_sort.stores import journal_path

ITEMS = make_items(10)
DETACH = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, detach=True)
TIES = Swiss(comparison_rounds=1, top_k=3, ties=True)


def _records(tmp_path) -> list[list[list[object]]]:
    with sqlite3.connect(journal_path(tmp_path / "runs.sqlite3")) as conn:
        return [json.loads(row[0]) for row in conn.execute("SELECT requests FROM batch_jobs")]


def _as_old_records(tmp_path) -> None:
    with sqlite3.connect(journal_path(tmp_path / "runs.sqlite3")) as conn:
        for rowid, text in conn.execute("SELECT rowid, requests FROM batch_jobs").fetchall():
            old = json.dumps([row[:4] for row in json.loads(text)])
            conn.execute("UPDATE batch_jobs SET requests = ? WHERE rowid = ?", (old, rowid))


@pytest.mark.parametrize("old", [False, True], ids=["named", "old-records"])
async def test_a_resumed_run_reads_its_batch_as_asked(old, tmp_path) -> None:
    scores = hidden_scores(ITEMS)
    with batch_server("openai", scores, ties_below=1.5) as (fake, url):
        with pytest.raises(RunDetached):
            await sorter(batch_provider("openai", url, DETACH), tmp_path,
                         strategy=TIES).sort(ITEMS, run_id="r")
        records = _records(tmp_path)
        assert records and all(row[4] == "compare+ties" for job in records for row in job)
        if old:
            _as_old_records(tmp_path)
        result = await sorter(batch_provider("openai", url), tmp_path,
                              strategy=TIES).resume("r")
        clean = await sorter(batch_provider("openai", url), tmp_path, checkpointer=None,
                             strategy=TIES).sort(ITEMS)
    assert result.statistics.tied_calls > 0 and result.statistics.failed_calls == 0
    assert calls_of(result) == calls_of(clean)
