"""Which store `checkpointer=` chooses, and what a PostgreSQL URI needs, without a server."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.stores import MemoryStore, SqliteStore, store_for
from llm_qualitative_sort.stores.default import default_checkpoint_path, default_checkpointer
from llm_qualitative_sort.stores.postgres import PostgresStore
from llm_qualitative_sort.stores.postgres_connect import is_dsn, redact

DSN = "postgresql://sorter:s3cret@db.internal:6543/runs?sslmode=require"


def test_the_store_is_chosen_once_from_what_checkpointer_is(tmp_path: Path) -> None:
    assert isinstance(store_for(None), MemoryStore)
    saver = InMemorySaver()
    assert isinstance(store_for(saver), MemoryStore) and store_for(saver).lease is not None
    assert isinstance(store_for(tmp_path / "runs.sqlite3"), SqliteStore)
    assert isinstance(store_for(str(tmp_path / "runs.sqlite3")), SqliteStore)
    assert isinstance(store_for(DSN), PostgresStore)
    assert isinstance(store_for("postgres://db/runs"), PostgresStore)
    with pytest.raises(TypeError, match="postgresql:// URI"):
        store_for(42)  # type: ignore[arg-type]


def test_a_uri_is_shown_without_its_password() -> None:
    assert is_dsn(DSN) and not is_dsn("runs.sqlite3") and not is_dsn(Path("postgresql:"))
    assert redact(DSN) == "postgresql://sorter@db.internal:6543/runs"
    assert store_for(DSN).where == "postgresql://sorter@db.internal:6543/runs"
    command = RunConfig(run_id="r1", checkpoint=DSN).resume_command()
    assert "s3cret" not in command and "--checkpoint postgresql://sorter@db.internal" in command


def test_the_default_store_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_checkpointer() == default_checkpoint_path()
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CHECKPOINT", DSN)
    assert default_checkpointer() == DSN
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger")
    assert isinstance(sorter._store, PostgresStore)


def test_a_uri_without_the_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def without_psycopg(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith(("psycopg", "langgraph.checkpoint.postgres")):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_psycopg)
    monkeypatch.setattr("importlib.import_module", lambda name: without_psycopg(name))
    with pytest.raises(ImportError, match=r'pip install -e "\.\[postgres\]"'):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", checkpointer=DSN)
