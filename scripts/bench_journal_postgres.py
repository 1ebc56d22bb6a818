"""The run journal on PostgreSQL against SQLite: calls per second and commit latency.

A sort of n items (N=2, two calls per match) with the zero-latency mock at C=100, kept in
memory (no journal writes: the baseline), in an SQLite file, and in PostgreSQL: as shipped
(`synchronous_commit = off`), with `synchronous_commit = on`, with the checkpoints there but
the journal in memory (what the journal itself costs), and as shipped behind a proxy that
adds a network round trip. Every group commit of the journal is timed. Variants are
interleaved over the repeats, so a busy machine slows them alike.

    python scripts/bench_journal_postgres.py --dsn postgresql://postgres@127.0.0.1:5432/postgres
    python scripts/bench_journal_postgres.py --quick   # n = 300, 2 repeats, no figure

The DSN (or $LLM_QUALITATIVE_SORT_TEST_POSTGRES) names a server where databases may be
created; `.ci/postgres.sh start DIR` starts a private one and prints its DSN.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import socket
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.journal import Journal
from llm_qualitative_sort.stores.postgres import PostgresStore
from llm_qualitative_sort.stores.sqlite import SqliteJournal

FIGURE = Path(__file__).resolve().parents[1] / "docs" / "journal_postgres.png"
CONCURRENCY = 100
COMMITS: list[tuple[float, int]] = []  # (seconds, calls) of every group commit


def _timed(flush: Callable[[Any], None], pending: Callable[[Any], int]) -> Callable[[Any], None]:
    def timed(self: Any) -> None:
        rows = pending(self)
        started = time.perf_counter()
        flush(self)
        if rows:
            COMMITS.append((time.perf_counter() - started, rows))
    return timed


Journal.flush = _timed(  # type: ignore[method-assign]
    Journal.flush, lambda j: sum(len(rows) for rows in j._records.values()))
PostgresJournal.flush = _timed(  # type: ignore[method-assign]
    PostgresJournal.flush, lambda j: sum(len(calls) for calls in j._pending.values()))


REAL_CONNECT = PostgresStore.connect


@asynccontextmanager
async def _memory_journal(self: PostgresStore) -> AsyncIterator[tuple[Any, SqliteJournal]]:
    """PostgreSQL checkpoints with the journal in memory: what the checkpointer alone costs."""
    async with REAL_CONNECT(self) as (saver, _):
        yield saver, SqliteJournal()


def _proxy(listen: int, target: int, one_way: float) -> None:
    """Forward 127.0.0.1:listen to 127.0.0.1:target, delaying every chunk by `one_way` s."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            await asyncio.sleep(one_way)
            writer.write(data)
            await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer),
                             return_exceptions=True)

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", listen)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _sort(checkpointer: Any, n: int) -> float:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=checkpointer, max_concurrent_requests=CONCURRENCY)
    started = time.perf_counter()
    result = await sorter.sort([str(i) for i in range(n)], run_id=uuid.uuid4().hex)
    return result.statistics.total_api_calls / (time.perf_counter() - started)


def _database(admin_dsn: str, port: int | None = None) -> str:
    name = f"lqs_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    info = conninfo_to_dict(admin_dsn)
    user = f"{info['user']}@" if info.get("user") else ""
    return f"postgresql://{user}127.0.0.1:{port or info.get('port', 5432)}/{name}"


def _summary(name: str, rates: list[float], commits: list[tuple[float, int]]) -> dict[str, Any]:
    latencies = sorted(seconds * 1e3 for seconds, _ in commits) or [0.0]
    return {"name": name, "rate": statistics.median(rates),
            "p50": statistics.median(latencies), "p90": latencies[int(0.9 * len(latencies))],
            "rows": statistics.mean(rows for _, rows in commits) if commits else 0.0,
            "commits": len(commits) / len(rates)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", default=os.environ.get("LLM_QUALITATIVE_SORT_TEST_POSTGRES"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rtt-ms", type=float, default=1.0, help="the proxy's round trip")
    args = parser.parse_args()
    if not args.dsn:
        parser.error("give --dsn (or set LLM_QUALITATIVE_SORT_TEST_POSTGRES)")
    n, repeats = (300, 2) if args.quick else (1000, 5)
    proxy_port = _free_port()
    target = int(conninfo_to_dict(args.dsn).get("port", 5432))
    proxy = multiprocessing.Process(target=_proxy, args=(proxy_port, target, args.rtt_ms / 2e3),
                                    daemon=True)
    proxy.start()
    tmp = Path(tempfile.mkdtemp())
    shipped = _database(args.dsn)
    variants: dict[str, Callable[[], Any]] = {
        "memory (no journal)": lambda: None,
        "SQLite file": lambda: tmp / f"{uuid.uuid4().hex}.sqlite3",
        "PostgreSQL": lambda: shipped,
        "PostgreSQL, synchronous_commit=on": lambda: shipped,
        "PostgreSQL checkpoints, journal in memory": lambda: shipped,
        f"PostgreSQL via +{args.rtt_ms:g} ms RTT": lambda: shipped.replace(
            f":{target}/", f":{proxy_port}/"),
    }
    rates: dict[str, list[float]] = {name: [] for name in variants}
    commits: dict[str, list[tuple[float, int]]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, target_of in variants.items():
            PostgresJournal.synchronous_commit = "on" if "=on" in name else "off"
            PostgresStore.connect = (  # type: ignore[method-assign]
                _memory_journal if "in memory" in name else REAL_CONNECT)
            COMMITS.clear()
            rates[name].append(asyncio.run(_sort(target_of(), n)))
            commits[name] += COMMITS
    proxy.kill()
    rows = [_summary(name, rates[name], commits[name]) for name in variants]
    base = rows[0]["rate"]
    print(f"n = {n}, N = 2, C = {CONCURRENCY}, zero-latency mock, {repeats} runs each "
          "(medians)\n")
    print("| store | calls/s | vs memory | commit p50 (ms) | p90 (ms) | calls/commit |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['name']} | {row['rate']:,.0f} | {row['rate'] / base:.2f} | "
              f"{row['p50']:.2f} | {row['p90']:.2f} | {row['rows']:.0f} |")
    if not args.quick:
        _figure(rows, n)


def _figure(rows: list[dict[str, Any]], n: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [row["name"].replace(", ", ",\n").replace(" via ", "\nvia ") for row in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.barh(names, [row["rate"] for row in rows], color="#4c72b0")
    left.set_xlabel("calls per second (higher is better)")
    left.invert_yaxis()
    journaled = [i for i, row in enumerate(rows) if row["commits"]]
    y = range(len(journaled))
    right.barh([i - 0.2 for i in y], [rows[i]["p50"] for i in journaled], height=0.4,
               label="median")
    right.barh([i + 0.2 for i in y], [rows[i]["p90"] for i in journaled], height=0.4,
               label="90th percentile")
    right.set_yticks(list(y), [names[i] for i in journaled])
    right.invert_yaxis()
    right.set_xlabel("one group commit of the journal (ms, lower is better)")
    right.legend(loc="upper right")
    fig.suptitle(f"Run journal: n={n}, N=2, C={CONCURRENCY}, zero-latency mock "
                 "(2 shared cores)")
    fig.tight_layout()
    fig.savefig(FIGURE, dpi=110)
    print(f"\nfigure: {FIGURE}")


if __name__ == "__main__":
    main()
