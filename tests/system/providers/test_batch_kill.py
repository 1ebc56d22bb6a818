"""SIGKILL a batch-mode sort while its batch is in progress, resume in a fresh process.

The fake server holds the batches of one round in progress; the worker is killed once it
has polled the held batch twice (it is waiting on it). The resumed process must poll that
same batch: the server sees exactly one submission per round and no request twice, and the
result is the uninterrupted run's.
"""

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
from _batch_setup import batch_provider, batch_server
from _setup import KEY, hidden_scores, make_items
from test_batch_sort import calls_of, sorter

from llm_qualitative_sort import Swiss

WORKER = Path(__file__).with_name("batch_worker.py")
ITEMS = make_items(16)
PREPASS_BUDGET = 40  # the pre-pass (16 calls), then three Swiss rounds of 8 matches


def start(config: dict[str, Any], tmp: Path, name: str) -> forked.Forked:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(config))
    return forked.start([sys.executable, str(WORKER), str(path)])


def polls_of_round(fake, round_number: int) -> int:
    with fake.lock:
        ids = [b.batch_id for b in fake.batches.values() if b.tag.startswith(
            f"lqs-r{round_number}-")]
    return sum(entry.split("?")[0].endswith(tuple(ids)) for entry in fake.log if ids and
               entry.startswith("GET "))


def wait_for(condition, process: forked.Forked, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, "the worker ended before it could be killed"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


# Both providers in the first round; a later round once (the runner is shared; each case
# costs two Python processes).
@pytest.mark.parametrize(("kind", "held_round"), [("openai", 1), ("google", 1), ("google", 3)])
def test_sigkill_while_waiting_then_resume_polls_the_same_batch(
    kind, held_round, tmp_path
) -> None:
    kill_and_resume(kind, held_round, tmp_path, str(tmp_path / "runs.sqlite3"))


# A pointwise run is one round of one batch: killed while waiting on it, the resumed
# process collects that batch and pays for no text twice.
@pytest.mark.parametrize("kind", ["openai", "google"])
def test_a_pointwise_batch_survives_sigkill_and_is_not_paid_twice(kind, tmp_path) -> None:
    kill_and_resume(kind, 1, tmp_path, str(tmp_path / "runs.sqlite3"), strategy="pointwise")


# A Swiss run with a pointwise pre-pass: its first round is one batch of score requests,
# the Swiss rounds after it batches of comparisons. Killed while waiting on either, the
# resumed process collects that batch and pays for no request twice.
@pytest.mark.parametrize(("kind", "held_round"), [("openai", 1), ("google", 2)])
def test_a_prepass_batch_survives_sigkill_and_is_not_paid_twice(
    kind, held_round, tmp_path
) -> None:
    kill_and_resume(kind, held_round, tmp_path, str(tmp_path / "runs.sqlite3"),
                    prepass_budget=PREPASS_BUDGET)


def kill_and_resume(kind: str, held_round: int, tmp_path: Path, checkpoint: str,
                    strategy: str | None = None, prepass_budget: int | None = None) -> None:
    """Kill a batch-mode worker waiting on round `held_round`, resume it in another."""
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        config = {"kind": kind, "url": url, "key": KEY, "items": ITEMS, "run_id": "killed",
                  "checkpoint": checkpoint, "out": str(tmp_path / "a"), "strategy": strategy,
                  "prepass_budget": prepass_budget}
        options: dict[str, Any] = {"strategy": strategy} if strategy else {}
        if prepass_budget:
            options = {"strategy": Swiss(budget=prepass_budget, prepass="pointwise")}
        run = sorter(batch_provider(kind, url), tmp_path, checkpointer=None, **options)
        reference = asyncio.run(run.sort(ITEMS))
        fake.batches.clear()
        fake.log.clear()

        fake.hold_round = held_round
        first = start(config, tmp_path, "first")
        wait_for(lambda: polls_of_round(fake, held_round) >= 2, first)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        assert fake.rounds() == list(range(1, held_round + 1))
        fake.hold_round = None

        resumed = start(dict(config, resume=True, out=str(tmp_path / "b")), tmp_path, "second")
        assert resumed.wait(timeout=120) == 0
        result = json.loads(Path(tmp_path / "b").read_text())
        submitted = fake.submitted()
        rounds = fake.rounds()
    assert rounds == list(range(1, result["rounds"] + 1))  # one submission per round
    assert len(submitted) == len(set(submitted)) == result["paid"]  # no request twice
    expected = [[a, b, w, [list(c) for c in calls]] for a, b, w, calls in calls_of(reference)]
    assert result["calls"] == expected
    assert result["rankings"] == json.loads(json.dumps(reference.rankings))
    scores = [[s.item, s.score, [c.label for c in s.calls]] for s in reference.pointwise]
    assert result["scores"] == json.loads(json.dumps(scores))
    prepass = [[s.item, s.score, [c.label for c in s.calls]] for s in reference.prepass]
    assert result["prepass"] == json.loads(json.dumps(prepass))
    if strategy == "pointwise":
        assert len(rounds) == 1 and len(submitted) == len(ITEMS) and result["calls"] == []
    if prepass_budget:
        assert len(submitted) == prepass_budget and len(rounds) > held_round
        alone = sorted(item for item, _, labels in result["prepass"] if len(labels) == 1)
        assert alone == sorted(ITEMS)  # the pre-pass scored every text once
        assert all(a != b for a, b, _, _ in result["calls"])
