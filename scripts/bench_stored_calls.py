"""CPU the readers of a run's stored calls cost over a large history.

A seeded synthetic history of `--rounds` rounds of n/2 matches of two calls each (n =
`--items`; 200,000 calls by default) is read by what reads every stored call: Swiss's
evidence (`gather_evidence`, twice a round), the result's matches (`history_matches`, once
a run) and the graph's counts (`counts`, once a run). Each `--src NAME=PATH` is a copy of
the package's `src/` folder (for example the code before a change, checked out in a
`git worktree`); every repeat runs each copy once, interleaved, each in a fresh
interpreter. Reported: mean ± sd of the CPU seconds per read.

    python scripts/bench_stored_calls.py --src before=../before/src --src after=src --repeat 5
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from _copies import copies, mean_sd, run_child

READERS = ("gather_evidence", "history_matches", "counts")


def child(items: int, rounds: int) -> dict[str, Any]:
    """Each reader's CPU seconds (best of 3) in this interpreter (the package from PYTHONPATH)."""
    import random
    import time

    from llm_qualitative_sort.results.from_state import counts, history_matches
    from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence

    rng = random.Random(1)
    history: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        matches = []
        for _ in range(items // 2):
            a, b = rng.sample(range(items), 2)
            winner = rng.choice("AB")
            calls = [[order, winner, "", False, 100, 10] for order in ("AB", "BA")]
            matches.append([a, b, winner, calls])
        history.append({"round": number, "matches": matches, "bye": None})
    texts = [str(i) for i in range(items)]
    readers = {"gather_evidence": lambda: gather_evidence(history, items),
               "history_matches": lambda: history_matches(texts, history),
               "counts": lambda: counts(history)}
    found = {}
    for name, read in readers.items():
        times = []
        for _ in range(3):
            start = time.process_time()
            read()
            times.append(time.process_time() - start)
        found[name] = min(times)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.items, args.rounds)))
        return
    named = copies(args.src)
    cpu: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for name, src in named.items():
            row = run_child(__file__, src, "--child", "--items", str(args.items),
                            "--rounds", str(args.rounds))
            for reader in READERS:
                cpu.setdefault((name, reader), []).append(row[reader])
    print("| reader | copy | CPU s per read (mean ± sd) |")
    print("|---|---|---|")
    for reader in READERS:
        for name in named:
            mean, spread = mean_sd(cpu[name, reader])
            print(f"| {reader} | {name} | {mean:.3f} ± {spread:.3f} |")


if __name__ == "__main__":
    main()
