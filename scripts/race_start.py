"""Starts of one run by several processes at the same moment, many times over.

Each round: a fresh directory; PROCESSES workers wait for one go signal, then all start the
same run id on the same SQLite checkpoint (wait_for_run=0). Each may only finish the run or
stop with `RunLockedError`; anything else (such as "database is locked") is counted and
printed. Exits 1 if any start ended otherwise.

    python scripts/race_start.py --rounds 20 --processes 6
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = [str(i * 7 % 101) for i in range(6)]


async def _start(checkpoint: str, go: Path) -> str:
    from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, RunLockedError

    while not go.exists():
        await asyncio.sleep(0.001)
    sorter = QualitativeSorter(MockLLMProvider(seed=1, latency=0.01), criteria="larger",
                               seed=1, checkpointer=checkpoint, wait_for_run=0)
    try:
        await sorter.sort(ITEMS, run_id="raced")
    except RunLockedError:
        return "RunLockedError"
    except Exception as exc:  # what the race must never give
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    return "finished"


def worker(checkpoint: str, go: str) -> None:
    """One contender: prints its outcome."""
    print(asyncio.run(_start(checkpoint, Path(go))), flush=True)


def one_round(processes: int) -> list[str]:
    """One race; the outcome of each contender."""
    with tempfile.TemporaryDirectory() as tmp:
        go = Path(tmp) / "go"
        contenders = [subprocess.Popen(
            [sys.executable, __file__, "--worker", str(Path(tmp) / "runs.sqlite3"), str(go)],
            stdout=subprocess.PIPE, text=True) for _ in range(processes)]
        time.sleep(1.0 + 0.2 * processes)  # the imports are done; all poll for `go`
        go.touch()
        return [(c.communicate(timeout=300)[0].strip() or f"exit {c.returncode}")
                for c in contenders]


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--processes", type=int, default=6)
    args = parser.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    for number in range(1, args.rounds + 1):
        outcomes = one_round(args.processes)
        counts.update(outcomes)
        odd = [o for o in outcomes if o not in ("finished", "RunLockedError")]
        print(f"round {number}: {len(outcomes) - len(odd)} sound" +
              (f"; {odd}" if odd else ""), flush=True)
    print(dict(counts), flush=True)
    return 1 if set(counts) - {"finished", "RunLockedError"} else 0


if __name__ == "__main__":
    sys.exit(main())
