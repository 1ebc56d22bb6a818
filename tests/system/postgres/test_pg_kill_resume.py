"""Workers sharing one PostgreSQL database: a run SIGKILLed on worker A resumes on worker B
with the uninterrupted run's ranking and at most `max_concurrent_requests` calls paid twice;
a cache filled by one process answers another."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import _forked as forked
import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter

WORKER = Path(__file__).parent.parent / "resume_worker.py"


def _run(config: dict[str, Any], tmp: Path, name: str) -> forked.Forked:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(config))
    return forked.start([sys.executable, str(WORKER), str(path)])


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _config(tmp: Path, dsn: str, case: str, n: int, latency: float, concurrency: int
            ) -> dict[str, Any]:
    return {
        "items": [str(i * 7 % 101) for i in range(n)], "mock_seed": 11, "seed": 5,
        "latency": latency, "concurrency": concurrency, "elimination_count": 2,
        "run_id": f"run-{case}", "checkpoint": dsn, "call_log": str(tmp / f"{case}.calls"),
        "out": str(tmp / f"{case}.out.json"),
    }


def _reference(n: int) -> tuple[Any, int]:
    """The uninterrupted run's result (as the worker writes it) and its calls, in process."""
    provider = MockLLMProvider(seed=11)
    sorter = QualitativeSorter(provider, criteria="the larger number", elimination_count=2,
                               seed=5, checkpointer=None)
    result = asyncio.run(sorter.sort([str(i * 7 % 101) for i in range(n)]))
    out = {"rankings": result.rankings, "matches": len(result.match_history)}
    return json.loads(json.dumps(out)), provider.calls


# A run killed a third of the way through, as the SQLite kill tests do at many points; with
# several calls in flight at the kill.
@pytest.mark.parametrize(("n", "latency", "concurrency", "share"), [(40, 0.002, 8, 0.35)])
def test_killed_on_worker_a_resumed_on_worker_b(
    tmp_path: Path, postgres_dsn: str, n: int, latency: float, concurrency: int, share: float
) -> None:
    reference, reference_calls = _reference(n)
    config = _config(tmp_path, postgres_dsn, "killed", n, latency, concurrency)
    log = Path(config["call_log"])
    kill_at = max(1, int(reference_calls * share))
    worker_a = _run(config, tmp_path, "a")
    deadline = time.monotonic() + 120
    while _lines(log) < kill_at and worker_a.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    worker_a.send_signal(signal.SIGKILL)
    worker_a.wait(timeout=30)
    before = _lines(log)
    assert not Path(config["out"]).exists(), "the run finished before the kill"

    worker_b = _run(dict(config, resume=True), tmp_path, "b")
    assert worker_b.wait(timeout=120) == 0
    assert json.loads(Path(config["out"]).read_text()) == reference
    pids = {line.split("|")[0] for line in log.read_text().splitlines()}
    assert len(pids) == 2  # both workers paid for calls
    assert before >= kill_at
    assert _lines(log) <= reference_calls + concurrency, (before, _lines(log), reference_calls)


def test_a_cache_in_the_database_answers_another_process(tmp_path: Path, postgres_dsn: str
                                                         ) -> None:
    first = dict(_config(tmp_path, postgres_dsn, "first", 24, 0.0, 10), cache_dsn=postgres_dsn)
    assert _run(first, tmp_path, "first").wait(timeout=120) == 0
    paid = _lines(Path(first["call_log"]))
    second = dict(_config(tmp_path, postgres_dsn, "second", 24, 0.0, 10),
                  cache_dsn=postgres_dsn)
    assert _run(second, tmp_path, "second").wait(timeout=120) == 0
    assert paid > 0
    assert _lines(Path(second["call_log"])) == 0  # every call answered from the shared cache
    assert (json.loads(Path(second["out"]).read_text())
            == json.loads(Path(first["out"]).read_text()))
