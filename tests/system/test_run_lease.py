"""One holder per run: two real processes on one run id never both pay for its calls.

The workers (resume_worker.py) log every call with their pid as it starts, so the log tells
who paid for what and in which order.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import socket
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _forked as forked
import pytest

from llm_qualitative_sort import (
    MockLLMProvider,
    QualitativeSorter,
    RunLockedError,
)
from llm_qualitative_sort.stores.leases import LeaseHolder, SqliteRunLease
from llm_qualitative_sort.stores.leases import base as lease_base

WORKER = Path(__file__).with_name("resume_worker.py")
N_ITEMS, CONCURRENCY = 20, 4


def _items() -> list[str]:
    return [str(i * 7 % 101) for i in range(N_ITEMS)]


def _sorter(provider: MockLLMProvider, **options: Any) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="the larger number", elimination_count=2,
                             max_concurrent_requests=CONCURRENCY, seed=5, **options)


@pytest.fixture(scope="module")
def reference() -> tuple[list[Any], int]:
    """The uninterrupted run's ranking and number of calls (the mock is deterministic)."""
    provider = MockLLMProvider(seed=11)
    result = asyncio.run(_sorter(provider, checkpointer=None).sort(_items(), run_id="ref"))
    return json.loads(json.dumps(result.rankings)), provider.calls


@pytest.fixture
def started() -> Iterator[list[forked.Forked]]:
    processes: list[forked.Forked] = []
    yield processes
    for process in processes:  # a failed test leaves none running
        if process.poll() is None:
            process.kill()
            process.wait()


def _config(tmp: Path, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "items": _items(), "mock_seed": 11, "seed": 5, "latency": 0.002,
        "concurrency": CONCURRENCY, "elimination_count": 2, "run_id": "shared-run",
        "checkpoint": str(tmp / "runs.sqlite3"), "call_log": str(tmp / "calls.log"),
        "out": str(tmp / f"{name}.out.json"), **extra,
    }


def _paused_first(
    tmp: Path, started: list[forked.Forked], pause_at: int,
    foreground: bool = False,
) -> tuple[forked.Forked, dict[str, Any]]:
    """A first process that pays for `pause_at` calls, then holds the run, paying nothing
    more, until the test creates its go file."""
    config = _config(tmp, "first", pause_at=pause_at, go_file=str(tmp / "go"))
    first = _start(config, tmp, "first", started, foreground)
    deadline = time.monotonic() + 60
    while len(_callers(tmp)) < pause_at and time.monotonic() < deadline:
        assert first.poll() is None, "the first process ended early"
        time.sleep(0.005)
    time.sleep(0.3)  # the calls it paid for have finished and are in its journal
    assert len(_callers(tmp)) == pause_at
    return first, config


def _start(
    config: dict[str, Any], tmp: Path, name: str, started: list[forked.Forked],
    foreground: bool = False,
) -> forked.Forked:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(config))
    started.append(forked.start([sys.executable, str(WORKER), str(path)],
                                foreground=foreground))
    return started[-1]


def _callers(tmp: Path) -> list[int]:
    """The pid of every call's payer, in the order the calls started."""
    log = tmp / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [int(line.split("|", 1)[0]) for line in lines]


def _out(config: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(Path(config["out"]).read_text())
    return result


def test_second_process_is_refused_naming_the_holder_and_pays_nothing(
    tmp_path: Path, reference: tuple[list[Any], int], started: list[forked.Forked]
) -> None:
    ranking, calls = reference
    first, first_config = _paused_first(tmp_path, started, pause_at=20)
    second_config = _config(tmp_path, "second")
    second = _start(second_config, tmp_path, "second", started)
    assert second.wait(timeout=60) == 3
    assert first.poll() is None
    refused = _out(second_config)
    assert refused["error"] == "RunLockedError"
    assert f"pid {first.pid} on host {socket.gethostname()!r} since " in refused["message"]
    (tmp_path / "go").touch()
    assert first.wait(timeout=120) == 0
    assert _out(first_config)["rankings"] == ranking
    payers = _callers(tmp_path)
    assert second.pid not in payers
    assert len(payers) == calls  # nothing paid twice


def test_a_waiting_process_continues_after_the_holder_stops_and_pays_only_the_rest(
    tmp_path: Path, reference: tuple[list[Any], int], started: list[forked.Forked],
) -> None:
    ranking, calls = reference
    # As from a terminal: in a suite run in the background it would inherit SIGINT ignored.
    first, _ = _paused_first(tmp_path, started, pause_at=calls // 3, foreground=True)
    ready = tmp_path / "second.ready"
    second_config = _config(tmp_path, "second", wait_for_run=None, ready_file=str(ready))
    second = _start(second_config, tmp_path, "second", started)
    deadline = time.monotonic() + 60
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # two polls at least: the second found the run held and waits
    assert first.poll() is None and second.poll() is None
    first.send_signal(signal.SIGINT)  # Ctrl-C: a clean stop that lets the run go
    first.wait(timeout=60)
    assert second.wait(timeout=120) == 0
    assert _out(second_config)["rankings"] == ranking
    payers = _callers(tmp_path)
    assert payers[: calls // 3] == [first.pid] * (calls // 3)
    assert payers[calls // 3 :] == [second.pid] * (calls - calls // 3)  # only the rest


def test_a_holder_killed_with_sigkill_does_not_block_a_new_process(
    tmp_path: Path, reference: tuple[list[Any], int], started: list[forked.Forked]
) -> None:
    ranking, calls = reference
    first, _ = _paused_first(tmp_path, started, pause_at=calls // 2)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    second_config = _config(tmp_path, "second")  # wait_for_run=0: refused if still held
    assert _start(second_config, tmp_path, "second", started).wait(timeout=120) == 0
    assert _out(second_config)["rankings"] == ranking
    assert len(_callers(tmp_path)) == calls  # its finished calls were journaled: none repaid


def _forge_foreign_holder(journal: Path, run_id: str) -> None:
    conn = sqlite3.connect(journal)
    now = time.time()
    holder = LeaseHolder(run_id, "lost-machine", 31337, now - 600, now, "theirs", "elsewhere")
    with conn:
        conn.execute("INSERT INTO leases VALUES (?, ?, ?, ?, ?, ?, ?)",
                     dataclasses.astuple(holder))
    conn.close()


async def test_a_foreign_holder_that_fell_silent_expires_after_the_ttl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: tuple[list[Any], int]
) -> None:
    ranking, calls = reference
    monkeypatch.setattr(lease_base, "DEFAULT_TTL", 1.0)
    checkpoint = tmp_path / "runs.sqlite3"
    journal = tmp_path / "runs.journal.sqlite3"
    async with SqliteRunLease(journal).hold("warm-up"):
        pass
    _forge_foreign_holder(journal, "run")
    provider = MockLLMProvider(seed=11)
    with pytest.raises(RunLockedError, match="pid 31337 on host 'lost-machine'") as caught:
        await _sorter(provider, checkpointer=checkpoint).sort(_items(), run_id="run")
    assert caught.value.holder.host == "lost-machine"
    assert provider.calls == 0
    started = time.monotonic()
    waiting = _sorter(provider, checkpointer=checkpoint, wait_for_run=None)
    result = await waiting.sort(_items(), run_id="run")
    assert time.monotonic() - started >= 0.5  # it had to wait for the silence to last
    assert json.loads(json.dumps(result.rankings)) == ranking
    assert provider.calls == calls


async def test_in_memory_runs_are_held_by_one_task_at_a_time() -> None:
    sorter = _sorter(MockLLMProvider(seed=11, latency=0.01), checkpointer=None)
    first = asyncio.create_task(sorter.sort(_items(), run_id="mem"))
    await asyncio.sleep(0.05)
    with pytest.raises(RunLockedError):
        await sorter.sort(_items(), run_id="mem")
    await first
    await sorter.sort(_items(), run_id="mem")  # finished and let go: returns the result


async def test_two_in_memory_sorters_do_not_hold_each_others_runs() -> None:
    one = _sorter(MockLLMProvider(seed=11, latency=0.01), checkpointer=None)
    two = _sorter(MockLLMProvider(seed=11, latency=0.01), checkpointer=None)
    first = asyncio.create_task(one.sort(_items(), run_id="mem"))
    await asyncio.sleep(0.05)
    other = await two.sort(_items(), run_id="mem")  # its own memory: another run of that id
    assert other.rankings == (await first).rankings
