"""`sort --ties`: the judge may answer a tie; the run keeps the setting when resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, main
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(v) for v in range(0, 200, 7)]


def _sort(tmp_path: Path, *args: str) -> int:
    return main(["sort", str(tmp_path / "items.txt"), "--criteria", "larger", "--seed", "1",
                 "--strategy", "swiss", "--progress", "none",
                 "--checkpoint", str(tmp_path / "runs.db"), *args])


def test_sort_with_ties_reports_tied_calls_and_resumes_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "items.txt").write_text("\n".join(ITEMS), encoding="utf-8")
    assert _sort(tmp_path, "--ties", "--mock-tie-margin", "8", "--run-id", "whole",
                 "--out", str(tmp_path / "whole.json")) == EXIT_OK
    whole = json.loads((tmp_path / "whole.json").read_text("utf-8"))
    assert whole["settings"]["ties"] is True
    assert whole["statistics"]["tied_calls"] > 0

    original = MockLLMProvider.compare_call

    async def breaking(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        if self.calls >= 40:
            raise PermanentProviderError("killed")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", breaking)
    assert _sort(tmp_path, "--ties", "--mock-tie-margin", "8", "--run-id", "cut") == EXIT_STOPPED
    monkeypatch.setattr(MockLLMProvider, "compare_call", original)
    assert main(["sort", "--resume", "cut", "--progress", "none", "--checkpoint",
                 str(tmp_path / "runs.db"), "--out", str(tmp_path / "cut.json")]) == EXIT_OK
    cut = json.loads((tmp_path / "cut.json").read_text("utf-8"))
    assert cut["settings"]["ties"] is True
    assert cut["statistics"]["tied_calls"] == whole["statistics"]["tied_calls"]
    assert cut["rankings"] == whole["rankings"]
    capsys.readouterr()
    assert main(["runs", "list", "--checkpoint", str(tmp_path / "runs.db")]) == EXIT_OK
    listed = [line for line in capsys.readouterr().out.splitlines()
              if line.startswith(("whole", "cut"))]
    assert len(listed) == 2 and all(" ties " in line for line in listed)


def test_without_ties_reports_say_nothing_of_them(tmp_path: Path) -> None:
    (tmp_path / "items.txt").write_text("\n".join(ITEMS), encoding="utf-8")
    assert _sort(tmp_path, "--mock-tie-margin", "8", "--out", str(tmp_path / "r.json")) == EXIT_OK
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert "ties" not in report["settings"]
    assert report["statistics"]["tied_calls"] == 0 and report["statistics"]["failed_calls"] == 0


def test_the_summary_says_how_many_calls_were_tied_or_gave_no_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "items.txt").write_text("\n".join(ITEMS), encoding="utf-8")
    original = MockLLMProvider.compare_call

    async def refusing(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        answer = await original(self, *args, **kwargs)
        if self.calls % 5 == 0:  # an answer without a usable verdict
            return ComparisonResult(winner=None, reasoning="I cannot say.")
        return answer

    monkeypatch.setattr(MockLLMProvider, "compare_call", refusing)
    capsys.readouterr()
    assert _sort(tmp_path, "--ties", "--mock-tie-margin", "8", "--run-id", "said",
                 "--out", str(tmp_path / "said.json")) == EXIT_OK
    err = capsys.readouterr().err
    stats = json.loads((tmp_path / "said.json").read_text("utf-8"))["statistics"]
    assert stats["failed_calls"] > 0 and stats["tied_calls"] > 0
    assert (f"from cache, {stats['failed_calls']} without a verdict, "
            f"{stats['tied_calls']} tied)") in err
