"""CPU a call costs in the sorting process with the real OpenAI, Gemini and LangChain clients.

A sort of 30 texts (four eliminations, 192 calls) against the loopback fakes of
`tests/integration/providers/_fakes.py`, each served from a process of its own so that only
the client's side is counted: the sorting process's CPU time (user + system) per call.
Each `--src NAME=PATH` is a copy of the package's `src/` folder (for example the code
before and after a change, one of them a `git worktree`); every repeat runs each copy once
per client, interleaved, each in a fresh interpreter. Reported: mean ± sd of the CPU
milliseconds per call, and each copy's ratio to the first one.

    python scripts/bench_client_calls.py --src before=../before/src --src after=src --repeat 8
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from _copies import copies, mean_sd, run_child

HERE = Path(__file__).resolve().parent
FAKES = HERE.parent / "tests" / "integration" / "providers"
KINDS = ("openai", "google", "langchain")


def serve_forever(kind: str, pipe: Connection) -> None:
    """The fake server for `kind`, until the parent closes the pipe."""
    sys.path.insert(0, str(FAKES))
    from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
    from _setup import KEY, hidden_scores, make_items

    model = "gemini-3.0" if kind == "google" else "gpt-5.1"
    judge = FakeJudge(hidden_scores(make_items()), KEY, model)
    server, url = serve(judge, GeminiDialect if kind == "google" else OpenAIDialect)
    pipe.send(url + ("/v1beta" if kind == "google" else "/v1"))
    try:
        pipe.recv()
    except EOFError:
        pass
    server.shutdown()


def child(kind: str) -> dict[str, Any]:
    """One sort in this interpreter (the package comes from PYTHONPATH); its CPU and calls."""
    import asyncio

    sys.path.insert(0, str(FAKES))
    from _setup import make_items, make_provider

    from llm_qualitative_sort import FileCache, QualitativeSorter

    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(
        target=serve_forever, args=(kind, theirs), daemon=True)
    server.start()
    url = ours.recv()
    items = make_items()

    async def sort(folder: Path) -> dict[str, Any]:
        sorter = QualitativeSorter(
            make_provider(kind, url), criteria="which text is more persuasive", seed=3,
            checkpointer=folder / "runs.sqlite3", cache=FileCache(folder / "cache"),
            elimination_count=4)
        cpu, wall = time.process_time(), time.perf_counter()
        result = await sorter.sort(items)
        return {"calls": result.statistics.total_api_calls,
                "failed": result.statistics.failed_calls,
                "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}

    with tempfile.TemporaryDirectory() as folder:
        outcome = asyncio.run(sort(Path(folder)))
    ours.send("stop")
    server.join(5)
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kind", action="append", choices=KINDS)
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    named = copies(args.src)
    kinds = args.kind or list(KINDS)
    per_call: dict[tuple[str, str], list[float]] = {}
    for repeat in range(args.repeat):
        for kind in kinds:
            for name, src in named.items():
                outcome = run_child(__file__, src, "--child", kind)
                if outcome["failed"]:
                    raise SystemExit(f"{name} {kind}: {outcome['failed']} failed calls")
                ms = outcome["cpu"] / outcome["calls"] * 1000
                per_call.setdefault((kind, name), []).append(ms)
                print(f"repeat {repeat + 1} {kind:9} {name:8} {outcome['calls']} calls "
                      f"{ms:6.2f} ms CPU per call", file=sys.stderr)
    first = next(iter(named))
    print("| client | copy | CPU ms per call | × " + first + " |")
    print("|---|---|---|---|")
    for kind in kinds:
        base, _ = mean_sd(per_call[(kind, first)])
        for name in named:
            mean, sd = mean_sd(per_call[(kind, name)])
            print(f"| {kind} | {name} | {mean:.2f} ± {sd:.2f} | {mean / base:.2f} |")


if __name__ == "__main__":
    main()
