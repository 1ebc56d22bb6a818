"""Trials: a random call raises `CancelledError` at a random moment; every run must end well.

For each schedule ("rounds", "pipelined"), each trial sorts 6 to 16 texts with a judge that
always prefers the later text, except that one random call raises `CancelledError` (nobody
cancelled the run) after a random number of event-loop turns, either directly or by
awaiting an inner task that is cancelled elsewhere. The retry policy is drawn too (retries,
or none). A trial passes when the run either finishes or stops with `RunStoppedError` (never
a `CancelledError`, another exception or a hang), a stopped run resumes to a result, and that
result is whole: every match has all its calls, each with a verdict, no failed call, no item
with more losses than `elimination_count`, and the best text first.

    python scripts/trial_cancelled_calls.py             # 25 trials per schedule
    python scripts/trial_cancelled_calls.py --trials 50 --seed 7
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from collections import Counter
from pathlib import Path

from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    ComparisonResult,
    LLMProvider,
    QualitativeSorter,
    RunStoppedError,
    SortResult,
    TransientProviderError,
)

HANG = 60.0  # seconds: a trial's run taking longer counts as a hang
N = 2  # elimination_count


class StrayCancel(LLMProvider):
    """Prefers the later text; call number `fail_at` raises `CancelledError` after `turns`."""

    def __init__(self, fail_at: int, turns: int, inner: bool) -> None:
        super().__init__(model="stray-cancel")
        self.fail_at, self.turns, self.inner = fail_at, turns, inner
        self.calls = 0

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        self.calls += 1
        number = self.calls
        for _ in range(self.turns if number == self.fail_at else 1):
            await asyncio.sleep(0)
        if number == self.fail_at:
            if self.inner:  # a task of the client's own, cancelled by someone else
                task = asyncio.create_task(asyncio.sleep(10))
                asyncio.get_running_loop().call_soon(task.cancel)
                await task
            raise asyncio.CancelledError
        return ComparisonResult(winner="A" if item_a > item_b else "B", reasoning="")


def make_sorter(provider: LLMProvider, path: Path, schedule: str,
                retry: RetryPolicy) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="later in the alphabet", seed=3,
                             checkpointer=path, schedule=schedule, elimination_count=N,
                             max_concurrent_requests=4, retry_policy=retry)


def problems(result: SortResult, items: list[str]) -> list[str]:
    """What is wrong with a finished run's result (empty when nothing)."""
    found = []
    losses: Counter[str] = Counter()
    for match in result.match_history:
        if len(match.rounds) != 2:
            found.append(f"a match with {len(match.rounds)} calls")
        if any(call.winner is None for call in match.rounds):
            found.append("a call without verdict")
        if match.winner is None:
            losses.update([match.item_a, match.item_b])
        else:
            losses[match.item_b if match.winner == "A" else match.item_a] += 1
    if result.statistics.failed_calls:
        found.append(f"{result.statistics.failed_calls} failed calls")
    worst = max(losses.values(), default=0)
    if worst > N:
        found.append(f"an item with {worst} losses")
    if result.rankings[0] != (1, [max(items)]):
        found.append(f"first place {result.rankings[0]}")
    return found


async def trial(rng: random.Random, schedule: str, folder: Path) -> tuple[str, list[str]]:
    """One trial: how it ended ("finished", "stopped+resumed") and its problems."""
    items = [f"t{n:02d}" for n in range(rng.randint(6, 16))]
    rng.shuffle(items)
    calls = 2 * (2 * len(items) - 1)  # about what the run makes
    provider = StrayCancel(rng.randint(1, calls), rng.randint(0, 5), rng.random() < 0.5)
    retry = RetryPolicy(initial_interval=0.001, max_interval=0.001, jitter=False,
                        max_attempts=rng.choice([1, 3]), retry_on=TransientProviderError)
    path = folder / f"{schedule}-{rng.getrandbits(32)}.db"
    try:
        result = await asyncio.wait_for(
            make_sorter(provider, path, schedule, retry).sort(items, run_id="t"), HANG)
        outcome = "finished"
    except RunStoppedError:
        healthy = StrayCancel(0, 0, False)
        result = await asyncio.wait_for(
            make_sorter(healthy, path, schedule, retry).resume("t"), HANG)
        outcome = "stopped+resumed"
    return outcome, problems(result, items)


async def main(trials: int, seed: int) -> int:
    rng = random.Random(seed)
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for schedule in ("rounds", "pipelined"):
            outcomes: Counter[str] = Counter()
            bad = 0
            for number in range(trials):
                try:
                    outcome, found = await trial(rng, schedule, Path(folder))
                except BaseException as exc:  # noqa: BLE001 - a trial's failure is counted
                    outcome, found = "error", [f"{type(exc).__name__}: {exc}"]
                outcomes[outcome] += 1
                if found:
                    bad += 1
                    print(f"{schedule} trial {number}: {outcome}: {'; '.join(found)}")
            failures += bad
            print(f"{schedule}: {trials} trials, {bad} failures ({dict(outcomes)})")
    print(f"total: {2 * trials} trials, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=25, help="trials per schedule")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    raise SystemExit(asyncio.run(main(args.trials, args.seed)))
