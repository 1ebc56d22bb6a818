"""Shared test setup: no test may reach beyond the loopback interface."""

from __future__ import annotations

import functools
import gc
import ipaddress
import socket
import ssl
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The suite starts some 150 Python processes, each of which would compile the package from
# source when the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, set on some
# CI images): here the first import writes it, and every later process reads it. Set before
# Hypothesis is imported: pytest rewrites the asserts of a plugin's package (all of
# Hypothesis, some 80 modules) and keeps the result only when bytecode may be written, so
# otherwise each test process rewrote them again (about a second of CPU each).
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# No wall-clock limit per example: Hypothesis's default 200 ms deadline fails a property
# test on a busy machine for no fault of the code (tests assert results, never speed).
settings.register_profile("no-deadline", deadline=None)
settings.load_profile("no-deadline")

# The helpers for tests that start processes (`_forked`, the workers) and those shared by
# several test folders (`_suite`) import by name.
sys.path.insert(0, str(Path(__file__).parent / "tests" / "system"))
sys.path.insert(0, str(Path(__file__).parent / "tests"))

# Every HTTP client the tests build (OpenAI's, Gemini's, httpx's; one or two per client, and
# some tests build dozens) makes a TLS context, which loads the CA bundle's ~150 certificates:
# ~20 ms of CPU each time, some 10 s over the suite. The tests speak plain HTTP to 127.0.0.1,
# so no context is ever used: each kind is built once and shared.
_real_tls_context = ssl.create_default_context


@functools.cache
def _shared_tls_context(*args: Any, **kwargs: Any) -> ssl.SSLContext:
    return _real_tls_context(*args, **kwargs)


ssl.create_default_context = _shared_tls_context

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(real: Any) -> Any:
    def connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise RuntimeError(f"test tried to reach {address!r}: tests stay on 127.0.0.1")
        return real(self, address)

    return connect


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: unknown when it is not loaded
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Hand the waiting tests (`tests/_waiting.py`) to one worker, the rest one at a time.

    xdist hands out work in units, the largest first: every other test is a unit of its
    own, in collection order (see `tests/system/conftest.py`), and the waiting tests are one
    unit, run one after another by the worker that takes it. Only for `--dist load` (what
    `-n` means alone); another `--dist` given on the command line keeps its own scheduler.
    """
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    from _waiting import waits

    class WaitersTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "waiting tests" if waits(nodeid) else nodeid

    return WaitersTogether(config, log)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep what the collection built out of the garbage collector's full passes.

    Collecting imports the package, the clients and the tests (some 200,000 objects that
    live until the end); every full collection during the run would walk them again.
    """
    gc.freeze()


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded(_real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded(_real_connect_ex))
    yield


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the default checkpoint file of every test inside its own tmp dir."""
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_HOME", str(tmp_path / "home"))
    # A deployment's default store must not leak into tests that expect the default file.
    monkeypatch.delenv("LLM_QUALITATIVE_SORT_CHECKPOINT", raising=False)


# PostgreSQL: `.ci/run` starts a private server (`.ci/postgres.sh`) and exports its DSN here,
# with REQUIRE set so that a test that cannot reach it fails instead of skipping.
POSTGRES_VARIABLE = "LLM_QUALITATIVE_SORT_TEST_POSTGRES"
REQUIRE_VARIABLE = "LLM_QUALITATIVE_SORT_REQUIRE_POSTGRES"


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The DSN of the test server's maintenance database; skips (or fails in CI) without it."""
    import os

    dsn = os.environ.get(POSTGRES_VARIABLE)
    required = os.environ.get(REQUIRE_VARIABLE) == "1"
    if not dsn:
        message = (f"no PostgreSQL server: set {POSTGRES_VARIABLE} to a DSN "
                   "(`.ci/postgres.sh start DIR` starts one and prints it)")
        if required:
            pytest.fail(message)
        pytest.skip(message)
    try:
        import psycopg

        psycopg.connect(dsn, connect_timeout=10).close()
    except Exception as exc:  # no extra installed, or the server is down
        if required:
            pytest.fail(f"cannot reach the PostgreSQL server {dsn}: {exc}")
        pytest.skip(f"cannot reach the PostgreSQL server {dsn}: {exc}")
    return dsn


@pytest.fixture
def postgres_dsn(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server, dropped after the test."""
    import uuid

    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = f"lqs_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    info = conninfo_to_dict(postgres_server)
    host, port, user = info.get("host", "127.0.0.1"), info.get("port", "5432"), info.get("user")
    yield f"postgresql://{user + '@' if user else ''}{host}:{port}/{name}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
