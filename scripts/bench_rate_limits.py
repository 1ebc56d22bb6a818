"""Runs against a provider's rate limits, with no rate set by the user (and one with).

A Swiss sort of 100 texts through the real OpenAI and Gemini clients against the loopback
fakes of `tests/integration/providers/_rate_fakes.py`: a request bucket (burst 5) and,
in one case, a tokens-per-minute bucket; 429s carry the headers (OpenAI) or the
RetryInfo and QuotaFailure (Gemini) the real APIs send; 100 ms per answered call. Two
more shapes: a strict limiter (at most 2 requests in any 1-second window, no burst), and
a server whose first 3 answers are 429s asking to wait 6 s.
Reported per case: wall seconds, the ideal wall (calls / rate, or tokens / tokens per
second when tokens bind; for the early wait, the wait plus the wall of the same run
without it, measured just before), their ratio, the share of requests answered 429,
failed calls, and the run's own statistics (429s met, seconds held).

    python scripts/bench_rate_limits.py            # every case (about seven minutes)
    python scripts/bench_rate_limits.py --case 2/s  # the cases whose name has "2/s"
    python scripts/bench_rate_limits.py --repeat 3  # each case 3 times, interleaved: medians
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "integration" / "providers"))

from _fakes import serve  # noqa: E402
from _rate_fakes import (  # noqa: E402
    RateGemini,
    RateJudge,
    RateOpenAI,
    StrictJudge,
    StrictOpenAI,
)
from langgraph.types import RetryPolicy  # noqa: E402

from llm_qualitative_sort import (  # noqa: E402
    GoogleProvider,
    OpenAIProvider,
    QualitativeSorter,
    QuotaExceededError,
    RunStoppedError,
    Swiss,
    TransientProviderError,
)

KEY = "sk-bench-0000"
RETRY = RetryPolicy(initial_interval=0.5, backoff_factor=2.0, max_interval=60.0,
                    max_attempts=6, jitter=True, retry_on=TransientProviderError)


@dataclass(frozen=True)
class Case:
    """One run: the server's limits, the client's settings, the budget."""

    name: str
    dialect: str  # "openai" / "gemini"
    rate: float
    concurrency: int
    budget: int
    requests_per_second: float | None = None
    tpm: float | None = None
    text_chars: int = 60
    quota: bool = False
    adaptive: bool = True
    stated: bool = True
    window: bool = False  # a strict limiter: `rate` requests in any 1-second window
    # The first 3 requests answered 429 with this retry-after (0: none, on the same server).
    early_wait: float | None = None


CASES = [
    Case("OpenAI 2/s, concurrency 10 (default), 60 calls", "openai", 2, 10, 60),
    Case("OpenAI 20/s, concurrency 50, 300 calls", "openai", 20, 50, 300),
    Case("OpenAI 20/s, concurrency 50, requests_per_second=20, 300 calls", "openai", 20, 50,
         300, requests_per_second=20),
    Case("OpenAI 20/s, concurrency 50, requests_per_second=20, adaptive_rate=False, "
         "300 calls", "openai", 20, 50, 300, requests_per_second=20, adaptive=False),
    Case("OpenAI 20/s and 400,000 tokens/min, texts of 4,000 characters, 60 calls",
         "openai", 20, 10, 60, tpm=400_000, text_chars=4000),
    Case("OpenAI 2/s, retry-after only (no x-ratelimit headers), 60 calls", "openai", 2, 10,
         60, stated=False),
    Case("OpenAI 20/s, retry-after only (no x-ratelimit headers), concurrency 50, 300 calls",
         "openai", 20, 50, 300, stated=False),
    Case("Gemini 2/s (RetryInfo and QuotaFailure), concurrency 10, 60 calls", "gemini", 2,
         10, 60),
    Case("Gemini 2/s (RetryInfo only), concurrency 10, 60 calls", "gemini", 2, 10, 60,
         stated=False),
    Case("Gemini per-day quota used up", "gemini", 2, 10, 60, quota=True),
    Case("OpenAI strict window: 2 in any second, retry-after 2, limit stated, 40 calls",
         "openai", 2, 10, 40, window=True),
    Case("OpenAI strict window: 2 in any second, requests_per_second=2, 40 calls",
         "openai", 2, 10, 40, window=True, requests_per_second=2),
    Case("OpenAI early wait: the first 3 requests 429 with retry-after 6, 28 calls",
         "openai", 1000, 10, 28, early_wait=6.0),
]


def texts(n: int, chars: int) -> list[str]:
    words = "the argument holds because each premise follows from evidence given above".split()
    out = []
    for i in range(n):
        body = " ".join(words[(i + j) % len(words)] for j in range(chars // 6 + 1))
        out.append(f"Essay {i}: {body}"[:max(chars, 12)])
    return out


def server_process(case: Case, items: list[str], pipe: Connection) -> None:
    """The fake server, in a process of its own (no share of the client's interpreter)."""
    scores = {item: float((i * 37) % 100) for i, item in enumerate(items)}
    model = "gpt-5.1" if case.dialect == "openai" else "gemini-3.0"
    if case.window or case.early_wait is not None:
        stated = {"x-ratelimit-limit-requests": str(round(case.rate * 60))}
        strict = StrictJudge(
            scores, KEY, model, latency=0.1,
            window=(round(case.rate), 1.0) if case.window else None,
            refuse_first=3 if case.early_wait else 0,
            on_429={"retry-after": f"{case.early_wait or 2:g}", **(stated if case.window else {})},
            on_answer=stated if case.window else {})
        server, url = serve(strict, StrictOpenAI)
    else:
        judge = RateJudge(scores, KEY, model, rate=case.rate, tpm=case.tpm, quota=case.quota,
                          latency=0.1, stated=case.stated)
        server, url = serve(judge, RateOpenAI if case.dialect == "openai" else RateGemini)
    pipe.send(url)
    pipe.recv()
    server.shutdown()
    server.server_close()
    if case.window or case.early_wait is not None:
        pipe.send({"answered": strict.answered, "limited": strict.limited, "refused": 0,
                   "tokens_answered": 0})
    else:
        pipe.send({"answered": judge.answered, "limited": judge.limited,
                   "refused": judge.refused, "tokens_answered": judge.tokens_answered})


def run(case: Case, folder: Path) -> dict[str, Any]:
    items = texts(100, case.text_chars)
    mine, theirs = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(
        target=server_process, args=(case, items, theirs))
    process.start()
    url = mine.recv()
    try:
        outcome = asyncio.run(sort(case, items, url, folder))
    finally:
        mine.send("stop")
        served = mine.recv()
        process.join()
    requests = served["answered"] + served["limited"] + served["refused"]
    ideal = served["answered"] / case.rate
    if case.tpm:
        ideal = max(ideal, served["tokens_answered"] / (case.tpm / 60))
    if case.early_wait:
        unlimited = run(replace(case, early_wait=0.0), folder)
        ideal = case.early_wait + unlimited["wall"]
    if not outcome["stopped"]:
        outcome |= {"ideal": round(ideal, 1), "ratio": round(outcome["wall"] / ideal, 2)}
    return outcome | {
        "requests": requests, "answered": served["answered"], "429": served["limited"],
        "share_429": round(served["limited"] / requests, 3) if requests else None,
        "refused_quota": served["refused"]}


async def sort(case: Case, items: list[str], url: str, folder: Path) -> dict[str, Any]:
    options: dict[str, Any] = {"requests_per_second": case.requests_per_second,
                               "adaptive_rate": case.adaptive}
    provider = (OpenAIProvider(api_key=KEY, base_url=url + "/v1", **options)
                if case.dialect == "openai"
                else GoogleProvider(api_key=KEY, base_url=url + "/v1beta", **options))
    sorter = QualitativeSorter(provider, criteria="which argues better", seed=1,
                               strategy=Swiss(budget=case.budget), retry_policy=RETRY,
                               max_concurrent_requests=case.concurrency,
                               checkpointer=folder / f"{abs(hash(case.name))}.sqlite3")
    started = time.perf_counter()
    outcome: dict[str, Any] = {"case": case.name}
    try:
        result = await sorter.sort(items)
    except RunStoppedError as stopped:
        cause = stopped.__cause__
        outcome |= {"stopped": True, "quota": isinstance(cause, QuotaExceededError),
                    "reason": str(stopped.reason)[:160]}

    else:
        stats = result.statistics
        outcome |= {"stopped": False, "failed_calls": stats.failed_calls,
                    "calls": stats.total_api_calls, "rate_limited": stats.rate_limited,
                    "rate_wait": round(stats.rate_wait, 1)}
    return outcome | {"wall": round(time.perf_counter() - started, 1)}


def median_run(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall time, with the range of walls and the most 429s of any run."""
    ordered = sorted(outcomes, key=lambda o: o["wall"])
    middle = dict(ordered[len(ordered) // 2])
    if len(ordered) > 1:
        middle["walls"] = [o["wall"] for o in outcomes]
        middle["most_429"] = max(o["429"] for o in outcomes)
        middle["most_failed"] = max(o.get("failed_calls", 0) for o in outcomes)
    return middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", default="", help="run the cases whose name holds this")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each case, interleaved; the median wall is reported")
    args = parser.parse_args()
    cases = [case for case in CASES if args.case in case.name]
    runs: dict[str, list[dict[str, Any]]] = {case.name: [] for case in cases}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeat):
            for case in cases:
                outcome = run(case, Path(folder))
                print(json.dumps(outcome), flush=True)
                runs[case.name].append(outcome)
    found = [median_run(outcomes) for outcomes in runs.values()]
    if args.repeat > 1:
        print("medians:")
        for outcome in found:
            print(json.dumps(outcome), flush=True)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n")


if __name__ == "__main__":
    main()
