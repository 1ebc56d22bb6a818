"""The command line refuses a checkpoint or report path it cannot use, before any call."""

from __future__ import annotations

import pytest

from llm_qualitative_sort.cli import EXIT_USAGE, main
from llm_qualitative_sort.providers import MockLLMProvider


@pytest.fixture
def items(tmp_path):
    path = tmp_path / "items.txt"
    path.write_text("10\n30\n20\n", encoding="utf-8")
    return path


@pytest.fixture
def no_calls(monkeypatch):
    async def refuse(*args, **kwargs):
        raise AssertionError("no call may be made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", refuse)


def _sort(capsys, items, *args: str) -> tuple[int, str]:
    code = main(["sort", str(items), "--criteria", "larger", "--progress", "none", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", [["sort"], ["runs", "list"], ["runs", "show", "r"]])
def test_a_checkpoint_that_is_a_directory_is_a_usage_error_naming_it(
    command, capsys, items, tmp_path, no_calls
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    if command == ["sort"]:
        code, err = _sort(capsys, items, "--checkpoint", str(store))
    else:
        code = main([*command, "--checkpoint", str(store)])
        err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    assert f"--checkpoint '{store}': it is a directory" in err
    assert "internal error" not in err and list(store.iterdir()) == []


def test_a_checkpoint_uri_of_another_database_is_refused(
    capsys, items, tmp_path, monkeypatch, no_calls
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = _sort(capsys, items, "--checkpoint", "mysql://me:hunter2@db/runs")
    assert code == EXIT_USAGE, err
    assert "--checkpoint is a mysql:// URI" in err and "hunter2" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.txt"]
