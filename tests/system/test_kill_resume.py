"""SIGKILL a sorting process at several points, resume in a fresh one, and check that
(a) the ranking equals the uninterrupted run's and (b) at most `max_concurrent_requests`
calls were paid twice (those in flight at the kill).

A pipelined run pairs players in the order their calls finish, so an uninterrupted run
makes other pairings; for it, "resumes exactly" means: (a) every pairing on disk at the
kill (in the checkpoint, or journaled before its calls started) is in the final pairing log
under the same number, (b) the ranking is the one the rules give for the final pairing log
and the judge's verdicts (an uninterrupted run of the same pairings), and (c) at most
`max_concurrent_requests` calls were paid twice."""

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
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort import MockLLMProvider
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.stores.default import journal_path
from llm_qualitative_sort.stores.journal import Journal
from llm_qualitative_sort.tournament import match_winner, presentation_orders
from llm_qualitative_sort.tournament.elimination import apply_match, final_ranks

WORKER = Path(__file__).with_name("resume_worker.py")


def _run(config: dict[str, Any], tmp: Path, name: str) -> forked.Forked:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(config))
    return forked.start([sys.executable, str(WORKER), str(path)])


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


SWISS = {"strategy": "swiss", "comparison_rounds": 1, "top_k": 5}
# A pointwise pre-pass: 40 calls scoring each item alone, then 80 in Swiss matches.
PREPASS = {"strategy": "swiss", "comparison_rounds": 1, "budget": 120, "prepass": "pointwise"}
# Pairs chosen by the posterior's A-criterion: the resumed rounds choose the same pairs.
A_OPTIMAL = {**SWISS, "pairing": "a-optimal"}


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


# Uninterrupted runs, by their settings: the cases that share them (on one xdist worker) share
# one run.
_REFERENCES: dict[str, tuple[Any, int]] = {}


def _uninterrupted(
    tmp: Path, n: int, latency: float, concurrency: int, strategy: dict[str, Any] | None
) -> tuple[Any, int]:
    key = json.dumps([n, latency, concurrency, strategy], sort_keys=True)
    if key not in _REFERENCES:
        config = _config(tmp, f"ref-{n}-{latency}", n, latency, concurrency, False, strategy)
        assert _run(config, tmp, "ref").wait(timeout=120) == 0
        _REFERENCES[key] = (json.loads(Path(config["out"]).read_text()),
                            _lines(Path(config["call_log"])))
    return _REFERENCES[key]


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
    (40, 0.001, 5, False, 0.15, PREPASS),  # inside the pre-pass round
    (40, 0.001, 5, True, 0.6, PREPASS),  # in the Swiss rounds after it
    (40, 0.001, 5, False, 0.3, A_OPTIMAL),
    (40, 0.001, 5, True, 0.9, A_OPTIMAL),  # in the top-K refinement waves
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


PIPELINED = {"schedule": "pipelined"}
PIPELINED_CASES = [
    # (n, latency, concurrency, cache, kill after this many calls)
    (40, 0.001, 5, False, 3),
    (40, 0.001, 5, False, 60),
    (40, 0.001, 5, True, 120),
    (24, 0.05, 8, False, 30),
]


async def _durable_pairings(config: dict[str, Any]) -> dict[int, list[int]]:
    """The pairings a resume starts from: the checkpoint's, and those journaled since."""
    async with AsyncSqliteSaver.from_conn_string(config["checkpoint"]) as saver:
        state = await build_graph(saver).aget_state(
            {"configurable": {"thread_id": config["run_id"]}})
    values = state.values
    found = {seq: [a, b] for entry in values.get("history", [])
             for seq, (a, b, *_rest) in zip(entry["seqs"], entry["matches"], strict=True)}
    found |= {seq: [a, b] for seq, a, b, *_ in values.get("in_flight", [])}
    journal = Journal(journal_path(Path(config["checkpoint"])))
    try:
        found |= {seq: pairing[:2] for seq, pairing in journal.pairings(config["run_id"]).items()}
    finally:
        journal.close()
    return found


async def _ranking_of(log: list[list[Any]], items: list[str], config: dict[str, Any]) -> Any:
    """Replay a pairing log through the rules, with verdicts asked afresh from the judge."""
    texts = sorted(items)
    judge = MockLLMProvider(seed=config["mock_seed"])
    losses, wins = [0] * len(texts), [0] * len(texts)
    for _seq, a, b, _winner in log:
        calls = []
        for order, repetition in presentation_orders(2):
            first, second = (a, b) if order == "AB" else (b, a)
            verdict = await judge.compare_call(texts[first], texts[second], "c",
                                               repetition=repetition)
            flip = {"A": "B", "B": "A", None: None}
            calls.append(verdict.winner if order == "AB" else flip[verdict.winner])
        apply_match(losses, wins, a, b, match_winner(calls), config["elimination_count"])
    ranks = final_ranks(wins, losses, config["elimination_count"])
    return [[rank, [texts[i] for i in group]] for rank, group in ranks]


@pytest.mark.parametrize(("n", "latency", "concurrency", "cache", "kill_at"), PIPELINED_CASES)
async def test_sigkill_then_resume_a_pipelined_run_keeps_its_pairings(
    tmp_path: Path, n: int, latency: float, concurrency: int, cache: bool, kill_at: int,
) -> None:
    config = _config(tmp_path, "pipelined", n, latency, concurrency, cache, PIPELINED)
    log = Path(config["call_log"])
    process = _run(config, tmp_path, "first")
    deadline = time.monotonic() + 120
    while _lines(log) < kill_at and process.poll() is None and time.monotonic() < deadline:
        await asyncio.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert not Path(config["out"]).exists(), "the run finished before the kill"
    before = await _durable_pairings(config)
    assert before, "nothing was paired before the kill"

    config["resume"] = kill_at % 2 == 0
    assert _run(config, tmp_path, "second").wait(timeout=120) == 0
    resumed = json.loads(Path(config["out"]).read_text())

    final = {seq: [a, b] for seq, a, b, _ in resumed["pairings"]}
    assert all(final.get(seq) == pair for seq, pair in before.items()), (before, final)
    assert sorted(final) == list(range(len(final)))  # numbered without gaps
    assert resumed["rankings"] == await _ranking_of(resumed["pairings"], config["items"], config)
    assert _lines(log) <= resumed["paid"] + concurrency, (_lines(log), resumed["paid"])
