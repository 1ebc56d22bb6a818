"""Connections to PostgreSQL, and the library's tables there (created and migrated here).

psycopg is an optional dependency: it is imported only when a PostgreSQL store is used, and
its absence is an error that says what to install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.errors import MissingExtra as MissingExtra
from llm_qualitative_sort.errors import StorageError, install_hint

if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql://", "postgres://")
# From a checkout of this repository: the name "llm-qualitative-sort" on PyPI is another
# project's (see `install_hint`).
INSTALL = install_hint("postgres")



JOURNAL = "llm_qualitative_sort_journal"
PAIRINGS = "llm_qualitative_sort_pairings"
LEASES = "llm_qualitative_sort_leases"
CATALOG = "llm_qualitative_sort_runs"
BATCH_JOBS = "llm_qualitative_sort_batch_jobs"
BATCH_ANSWERS = "llm_qualitative_sort_batch_answers"
CACHE = "llm_qualitative_sort_cache"
_VERSIONS = "llm_qualitative_sort_migrations"

# Each entry is one version of the schema, applied once, in order; never edit a released one,
# append a new one instead. The journal is append-only, one row per group commit and round
# holding its calls as a JSON array (the newest entry of a call wins when read): a row per
# call, even written with COPY, costs several times more per commit on the server.
MIGRATIONS: list[list[str]] = [[
    f"""CREATE TABLE {JOURNAL} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run_id TEXT NOT NULL,
        round INTEGER NOT NULL, calls TEXT NOT NULL)""",
    f"""CREATE INDEX {JOURNAL}_run ON {JOURNAL} (run_id, round)""",
    f"""CREATE TABLE {LEASES} (
        run_id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,
        started DOUBLE PRECISION NOT NULL, heartbeat DOUBLE PRECISION NOT NULL,
        token TEXT NOT NULL, space TEXT NOT NULL)""",
    f"""CREATE TABLE {CATALOG} (
        run_id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, record TEXT NOT NULL)""",
    f"""CREATE TABLE {BATCH_JOBS} (
        run_id TEXT NOT NULL, round INTEGER NOT NULL, seq INTEGER NOT NULL, tag TEXT NOT NULL,
        batch_id TEXT, state TEXT NOT NULL, requests TEXT NOT NULL,
        PRIMARY KEY (run_id, round, seq))""",
    f"""CREATE TABLE {BATCH_ANSWERS} (
        run_id TEXT NOT NULL, round INTEGER NOT NULL, match INTEGER NOT NULL,
        call INTEGER NOT NULL, seq INTEGER NOT NULL, answer TEXT NOT NULL,
        PRIMARY KEY (run_id, round, match, call, seq))""",
    f"""CREATE TABLE {CACHE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
], [
    # The pipelined schedule's pairings, one row per group commit ([[seq, *pairing], ...]).
    f"""CREATE TABLE {PAIRINGS} (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run_id TEXT NOT NULL,
        last_seq INTEGER NOT NULL, records TEXT NOT NULL)""",
    f"""CREATE INDEX {PAIRINGS}_run ON {PAIRINGS} (run_id)""",
]]


def is_dsn(target: object) -> bool:
    """Whether `target` is a PostgreSQL connection URI (postgresql://... or postgres://...)."""
    return isinstance(target, str) and target.startswith(SCHEMES)


def redact(dsn: str) -> str:
    """The DSN without its password, for messages and listings."""
    try:
        info = require("psycopg.conninfo").conninfo_to_dict(dsn)
    except Exception:  # not parseable: say nothing of what it holds
        return "a PostgreSQL database (the DSN could not be parsed)"
    host = info.get("host") or "localhost"
    port = f":{info['port']}" if info.get("port") else ""
    user = f"{info['user']}@" if info.get("user") else ""
    return f"postgresql://{user}{host}{port}/{info.get('dbname') or ''}"


def require(module: str) -> Any:
    """Import a module of the `postgres` extra, or say how to install it.

    Raises:
        MissingExtra: The extra is not installed (an `ImportError`).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(
            "a PostgreSQL checkpointer or cache needs the postgres extra (psycopg and "
            f"langgraph-checkpoint-postgres), which is not installed: {INSTALL}; {exc}"
        ) from exc


def connect_kwargs(dsn: str) -> dict[str, Any]:
    """Connection settings the DSN does not choose itself.

    A journal commit runs on the event loop, so a server that stops answering must fail it
    within bounds (TCP user timeout, keep-alives) rather than freeze the run.
    """
    given = require("psycopg.conninfo").conninfo_to_dict(dsn)
    defaults = {"connect_timeout": 10, "tcp_user_timeout": 30_000, "keepalives": 1,
                "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3,
                "application_name": "llm-qualitative-sort"}
    return {name: value for name, value in defaults.items() if name not in given}


def connect(dsn: str, purpose: str) -> psycopg.Connection[Any]:
    """A synchronous autocommit connection.

    Raises:
        StorageError: The server cannot be reached or refuses the connection.
    """
    psycopg_module = require("psycopg")
    try:
        conn: psycopg.Connection[Any] = psycopg_module.connect(
            dsn, autocommit=True, **connect_kwargs(dsn))
    except psycopg_module.Error as exc:
        raise StorageError(unusable(dsn, purpose, exc)) from exc
    return conn


async def connect_async(dsn: str, purpose: str, **options: Any) -> psycopg.AsyncConnection[Any]:
    """An asynchronous autocommit connection.

    Raises:
        StorageError: The server cannot be reached or refuses the connection.
    """
    psycopg_module = require("psycopg")
    try:
        conn: psycopg.AsyncConnection[Any] = await psycopg_module.AsyncConnection.connect(
            dsn, autocommit=True, **connect_kwargs(dsn), **options)
    except psycopg_module.Error as exc:
        raise StorageError(unusable(dsn, purpose, exc)) from exc
    return conn


def unusable(dsn: str, purpose: str, exc: BaseException) -> str:
    """Why the database cannot serve as `purpose` (the DSN's password left out)."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    return f"cannot use {redact(dsn)} as {purpose}: {message}"


async def migrate(conn: psycopg.AsyncConnection[Any]) -> None:
    """Create or bring up to date the library's tables, once, whoever else is starting.

    Workers starting together would race on `CREATE TABLE` (PostgreSQL's catalog is not
    protected by IF NOT EXISTS against concurrent creators): one transaction-level advisory
    lock makes them take turns, and the version table tells the later ones there is nothing
    left to do.
    """
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext('llm-qualitative-sort:schema'))")
        await conn.execute(f"CREATE TABLE IF NOT EXISTS {_VERSIONS} (v INTEGER PRIMARY KEY)")
        cursor = await conn.execute(f"SELECT COALESCE(MAX(v), 0) FROM {_VERSIONS}")
        row = await cursor.fetchone()
        done = int(row[0]) if row is not None else 0
        for version, migration in enumerate(MIGRATIONS[done:], start=done + 1):
            for statement in migration:
                await conn.execute(statement)
            await conn.execute(f"INSERT INTO {_VERSIONS} (v) VALUES (%s)", (version,))
