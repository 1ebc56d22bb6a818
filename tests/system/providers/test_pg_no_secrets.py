"""Runs and a cache kept in PostgreSQL through the command line with a real client: `runs
list/show/rm` and `report` read the shared database, and neither the API key nor the
database password is in any table."""

from __future__ import annotations

import json

import psycopg
import pytest
from _fakes import FakeJudge
from _setup import KEY

from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, main

PASSWORD = "pg-SECRET-77c0ffee"


def _all_text(dsn: str) -> str:
    """Every value of every table of the database's public schema, as text."""
    with psycopg.connect(dsn) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
        chunks = []
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}").fetchall():
                chunks += [bytes(v).decode("latin-1") if isinstance(v, (bytes, memoryview))
                           else str(v) for v in row]
    return "\n".join(chunks)


def test_runs_in_postgres_through_the_cli_keep_no_secret(
        capsys, tmp_path, monkeypatch, openai_judge: tuple[FakeJudge, str], items,
        postgres_dsn: str) -> None:
    judge, url = openai_judge
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # The server trusts local connections: the password only has to reach the DSN.
    dsn = postgres_dsn.replace("postgres@", f"postgres:{PASSWORD}@")
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps({"id": f"k{n}", "text": t}) + "\n"
                              for n, t in enumerate(items[:12])), "utf-8")
    common = ["sort", str(source), "--field", "text", "--id-field", "id", "--criteria",
              "the better essay", "--provider", "openai", "--model", "gpt-5.1",
              "--base-url", url, "--seed", "1", "--progress", "none", "--concurrency", "4",
              "--checkpoint", dsn, "--cache-dir", dsn]
    assert main([*common, "--run-id", "done"]) == EXIT_OK
    judge.script = ["200"] * 8 + ["401"]  # the ninth request of the next run: a bad key
    judge.always = None
    assert main([*common, "--run-id", "halted", "--elimination-count", "3"]) == EXIT_STOPPED
    capsys.readouterr()

    assert main(["runs", "list", "--json", "--checkpoint", dsn]) == EXIT_OK
    listed = {e["run_id"]: e for e in map(json.loads, capsys.readouterr().out.splitlines())}
    assert listed["done"]["state"] == "finished" and listed["done"]["items"] == 12
    assert listed["halted"]["state"] == "stopped" and listed["halted"]["calls"] >= 8
    assert main(["runs", "show", "halted", "--checkpoint", dsn]) == EXIT_OK
    shown = capsys.readouterr().out
    assert "--checkpoint postgresql://postgres@" in shown  # how to resume, without password
    assert main(["report", "done", "--out", str(tmp_path / "r.json"), "--checkpoint", dsn]
                ) == EXIT_OK
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["statistics"]["total_api_calls"] == listed["done"]["calls"]

    with psycopg.connect(postgres_dsn) as conn:
        cached = conn.execute("SELECT count(*) FROM llm_qualitative_sort_cache").fetchone()
    assert cached is not None and cached[0] >= listed["done"]["calls"]  # the CLI's cache
    stored = _all_text(postgres_dsn)
    assert "the better essay" in stored and "halted" in stored  # the scan reads the rows
    assert KEY not in stored
    assert PASSWORD not in stored
    assert PASSWORD not in capsys.readouterr().err

    assert main(["runs", "rm", "halted", "--checkpoint", dsn]) == EXIT_OK
    assert "halted" not in _all_text(postgres_dsn)


@pytest.fixture
def items() -> list[str]:
    from _setup import make_items

    return make_items(12)
