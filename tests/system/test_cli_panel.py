"""A panel of judges from the command line, in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import _forked as forked

import llm_qualitative_sort
from llm_qualitative_sort import MockLLMProvider

ITEMS = [str(i) for i in range(120)]


def test_a_panel_from_the_command_line(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(llm_qualitative_sort.__file__).parents[1]),
           "LLM_QUALITATIVE_SORT_HOME": str(tmp_path / "h")}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return forked.run([sys.executable, "-m", "llm_qualitative_sort", *args], env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=120,
                          cwd=tmp_path)

    (tmp_path / "a.txt").write_text("\n".join(ITEMS[:40]), encoding="utf-8")
    db = str(tmp_path / "runs.db")
    done = cli("sort", "a.txt", "--criteria", "larger", "--judge", "mock", "--judge", "mock",
               "--comparison-rounds", "4", "--seed", "3", "--progress", "none",
               "--checkpoint", db, "--run-id", "p1", "--out", "r.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    judges = [j["judge"] for j in report["statistics"]["judges"]]
    assert judges == [MockLLMProvider(seed=3, score=lambda t: 0.0).model_identity,
                      MockLLMProvider(seed=4, score=lambda t: 0.0).model_identity]
    assert report["statistics"]["agreement"][0]["prompts"] > 0
    assert report["settings"]["judges"] == "mock, mock"
    # The stored run keeps its panel: a report without the judge, a resume that changes it.
    html = cli("report", "p1", "--checkpoint", db, "--out", "r.html")
    assert html.returncode == 0, html.stderr
    assert "How sure is this ranking?" in (tmp_path / "r.html").read_text("utf-8")
    changed = cli("sort", "--resume", "p1", "--judge", "mock", "--checkpoint", db)
    assert changed.returncode == 2 and "differs from the stored run" in changed.stderr
    mixed = cli("sort", "a.txt", "--criteria", "c", "--judge", "mock", "--model", "gpt-5.1",
                "--checkpoint", db)
    assert mixed.returncode == 2 and "--judge names every judge" in mixed.stderr
