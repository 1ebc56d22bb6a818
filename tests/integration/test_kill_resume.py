"""SIGKILL a sorting process at several points, resume in a fresh one, and check that
(a) the ranking equals the uninterrupted run's and (b) at most `max_concurrent_requests`
calls were paid twice (those in flight at the kill)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

WORKER = Path(__file__).with_name("resume_worker.py")


def _run(config: dict[str, Any], tmp: Path, name: str) -> subprocess.Popen[bytes]:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(config))
    return subprocess.Popen([sys.executable, str(WORKER), str(path)])


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


SWISS = {"strategy": "swiss", "comparison_rounds": 1, "top_k": 5}


def _config(
    tmp: Path, case: str, n: int, latency: float, concurrency: int, cache: bool,
    strategy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "strategy": strategy or {},
        "items": [str(i * 7 % 101) for i in range(n)],
        "mock_seed": 11,
        "seed": 5,
        "latency": latency,
        "concurrency": concurrency,
        "elimination_count": 2,
        "run_id": f"run-{case}",
        "checkpoint": str(tmp / f"{case}.sqlite3"),
        "call_log": str(tmp / f"{case}.calls"),
        "out": str(tmp / f"{case}.out.json"),
        "cache_dir": str(tmp / f"{case}-cache") if cache else None,
    }


def _uninterrupted(
    tmp: Path, n: int, latency: float, concurrency: int, strategy: dict[str, Any] | None
) -> tuple[Any, int]:
    config = _config(tmp, f"ref-{n}-{latency}", n, latency, concurrency, False, strategy)
    assert _run(config, tmp, "ref").wait(timeout=120) == 0
    return json.loads(Path(config["out"]).read_text()), _lines(Path(config["call_log"]))


CASES = [
    # (n, latency, concurrency, cache, kill after this share of the reference calls, strategy)
    (40, 0.001, 5, False, 0.02, None),
    (40, 0.001, 5, False, 0.35, None),
    (40, 0.001, 5, False, 0.7, None),
    (40, 0.001, 5, True, 0.5, None),
    (40, 0.001, 5, False, 1.0, None),
    (16, 0.2, 8, False, 0.3, None),
    (16, 0.2, 8, True, 0.75, None),
    (40, 0.001, 5, False, 0.3, SWISS),
    (40, 0.001, 5, True, 0.9, SWISS),  # in the top-K refinement waves
    (40, 0.001, 5, False, 0.6, {"strategy": "swiss"}),  # two calls per match
]


@pytest.mark.parametrize(("n", "latency", "concurrency", "cache", "share", "strategy"), CASES)
def test_sigkill_then_resume_repeats_only_calls_in_flight(
    tmp_path: Path, n: int, latency: float, concurrency: int, cache: bool, share: float,
    strategy: dict[str, Any] | None,
) -> None:
    reference, reference_calls = _uninterrupted(tmp_path, n, latency, concurrency, strategy)
    config = _config(tmp_path, "killed", n, latency, concurrency, cache, strategy)
    log = Path(config["call_log"])
    kill_at = max(1, int(reference_calls * share))
    process = _run(config, tmp_path, "first")
    deadline = time.monotonic() + 120
    while _lines(log) < kill_at and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    before = _lines(log)
    assert not Path(config["out"]).exists(), "the run finished before the kill"

    config["resume"] = share >= 0.5  # half the cases through resume(), half through sort()
    assert _run(config, tmp_path, "second").wait(timeout=120) == 0
    resumed = json.loads(Path(config["out"]).read_text())

    assert resumed == reference
    assert before >= kill_at
    assert _lines(log) <= reference_calls + concurrency, (before, _lines(log), reference_calls)
