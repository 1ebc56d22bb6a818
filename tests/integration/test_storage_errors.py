"""Unusable storage is named before any call; a failing checkpoint mid-run is named too."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, StorageError

ITEMS = [str(n) for n in range(0, 60, 3)]


def _sort(checkpoint: Path, provider: MockLLMProvider, run_id: str = "run") -> None:
    sorter = QualitativeSorter(provider, criteria="larger", seed=1, checkpointer=checkpoint)
    import asyncio

    asyncio.run(sorter.sort(ITEMS, run_id=run_id))


def _directory(tmp: Path) -> Path:
    (tmp / "runs.sqlite3").mkdir()
    return tmp / "runs.sqlite3"


def _not_sqlite(tmp: Path) -> Path:
    (tmp / "runs.sqlite3").write_text("these are my notes, not a database\n" * 200)
    return tmp / "runs.sqlite3"


def _truncated(tmp: Path) -> Path:
    whole = tmp / "whole" / "runs.sqlite3"
    _sort(whole, MockLLMProvider(seed=1), run_id="earlier")
    target = tmp / "runs.sqlite3"
    shutil.copy(whole, target)  # without its WAL: what a copy made mid-write looks like
    with target.open("r+b") as file:
        file.truncate(target.stat().st_size // 2)
    return target


def _parent_is_a_file(tmp: Path) -> Path:
    (tmp / "plain-file").write_text("x")
    return tmp / "plain-file" / "runs.sqlite3"


def _journal_not_sqlite(tmp: Path) -> Path:
    (tmp / "runs.journal.sqlite3").write_bytes(b"\x00garbage" * 1000)
    return tmp / "runs.sqlite3"


CASES: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    # case: (make the path, the file the message must name, what it must say)
    "directory": (_directory, "runs.sqlite3", "it is a directory"),
    "not sqlite": (_not_sqlite, "runs.sqlite3", "not an SQLite database"),
    "truncated": (_truncated, "runs.sqlite3", "malformed"),
    "parent is a file": (_parent_is_a_file, "plain-file", "cannot create the directory"),
    "journal not sqlite": (_journal_not_sqlite, "runs.journal.sqlite3", "not an SQLite"),
}


@pytest.mark.parametrize("case", CASES)
def test_unusable_storage_is_named_before_any_call(tmp_path: Path, case: str) -> None:
    make, named, says = CASES[case]
    checkpoint = make(tmp_path)
    provider = MockLLMProvider(seed=1)
    with pytest.raises(StorageError) as caught:
        _sort(checkpoint, provider)
    message = str(caught.value)
    assert str(tmp_path) in message and named in message and says in message, message
    assert provider.calls == 0
    assert isinstance(caught.value, ValueError)  # a usage error, not an internal one
