"""The command line without the postgres extra, in a fresh interpreter that cannot import it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from llm_qualitative_sort.cli import EXIT_USAGE


@pytest.fixture
def items(tmp_path):
    path = tmp_path / "items.txt"
    path.write_text("10\n30\n20\n", encoding="utf-8")
    return path


# Stands for an installation without the `postgres` extra: its modules cannot be imported.
_BLOCK_POSTGRES = """
import importlib.abc, runpy, sys

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "psycopg" or name.startswith(("psycopg.", "psycopg_")) or \\
                name.startswith("langgraph.checkpoint.postgres"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
sys.argv[0] = "llm-qualitative-sort"
runpy.run_module("llm_qualitative_sort", run_name="__main__")
"""

DSN = "postgresql://someone:secret@127.0.0.1:9/nowhere"

@pytest.mark.parametrize(("args", "env"), [
    (["sort", "{items}", "--criteria", "c", "--progress", "none", "--checkpoint", DSN], {}),
    (["sort", "{items}", "--criteria", "c", "--progress", "none"],
     {"LLM_QUALITATIVE_SORT_CHECKPOINT": DSN}),
    (["runs", "list", "--checkpoint", DSN], {}),
    (["runs", "list"], {"LLM_QUALITATIVE_SORT_CHECKPOINT": DSN}),
])
def test_a_missing_postgres_extra_is_one_line_saying_what_to_install(
    args, env, items, tmp_path
) -> None:
    command = [sys.executable, "-c", _BLOCK_POSTGRES,
               *(a.replace("{items}", str(items)) for a in args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LLM_QUALITATIVE_SORT_HOME": str(tmp_path),
                               **env})
    assert done.returncode == EXIT_USAGE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert 'pip install -e ".[postgres]"' in lines[0] and "psycopg" in lines[0]
    assert "llm-qualitative-sort[postgres]" not in lines[0]  # that name is another package's
    assert "internal error" not in lines[0] and "secret" not in lines[0]
