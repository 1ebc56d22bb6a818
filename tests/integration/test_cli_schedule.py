"""`sort --schedule`: the Python `schedule=` on the command line, kept with the run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from _suite import cli as _call
from llm_qualitative_sort import PermanentProviderError, QualitativeSorter, RunMismatchError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE, main
from llm_qualitative_sort.cli._parser import SCHEDULES
from llm_qualitative_sort.cli._providers import mock_score
from llm_qualitative_sort.graph.schedules import SCHEDULES as GRAPH_SCHEDULES
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(n) for n in range(3, 60, 3)]  # 19 items


def _common(tmp_path: Path) -> list[str]:
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS), encoding="utf-8")
    return ["sort", str(items), "--criteria", "larger", "--checkpoint", str(tmp_path / "r.db"),
            "--progress", "none", "--seed", "5"]


async def _revoked(self, item_a, item_b, criteria, *, repetition):
    raise PermanentProviderError("401 invalid api key")


def test_the_cli_offers_exactly_the_graphs_schedules() -> None:
    # Named apart so that --help needs no LangGraph; they must not drift.
    assert SCHEDULES == tuple(GRAPH_SCHEDULES)


def test_a_pipelined_run_is_played_pipelined_and_kept(tmp_path, capsys) -> None:
    code, out, err = _call(capsys, *_common(tmp_path), "--schedule", "pipelined",
                           "--run-id", "p")
    assert code == EXIT_OK, err
    assert out.splitlines()[0].split()[-1] == "57"
    code, out, _ = _call(capsys, "runs", "show", "p", "--json",
                         "--checkpoint", str(tmp_path / "r.db"))
    assert code == EXIT_OK and json.loads(out)["settings"]["schedule"] == "pipelined"
    # The sorter played it pipelined: its state says so, and the rounds schedule is refused.
    judge = MockLLMProvider(seed=5, score=mock_score)
    sorter = QualitativeSorter(judge, criteria="larger", seed=5, schedule="rounds",
                               checkpointer=str(tmp_path / "r.db"))
    with pytest.raises(RunMismatchError, match="schedule='pipelined'"):
        asyncio.run(sorter.sort(ITEMS, run_id="p"))


def test_the_reports_name_a_pipelined_schedule_and_not_the_default(tmp_path, capsys) -> None:
    for schedule, run_id in (("pipelined", "p"), ("rounds", "r")):
        out = tmp_path / f"{run_id}.json"
        code, _, err = _call(capsys, *_common(tmp_path), "--schedule", schedule,
                             "--run-id", run_id, "--out", str(out))
        assert code == EXIT_OK, err
        settings = json.loads(out.read_text("utf-8"))["settings"]
        assert settings.get("schedule") == (None if schedule == "rounds" else schedule)
    code, _, _ = _call(capsys, "report", "p", "--out", str(tmp_path / "p.html"), "--lang", "ja",
                       "--checkpoint", str(tmp_path / "r.db"))
    assert code == EXIT_OK and "<b>スケジュール</b>" in (tmp_path / "p.html").read_text("utf-8")


def test_a_resume_keeps_the_schedule_and_refuses_another(tmp_path, capsys,
                                                         monkeypatch) -> None:
    monkeypatch.setattr(MockLLMProvider, "compare_call", _revoked)
    code, _, _ = _call(capsys, *_common(tmp_path), "--schedule", "pipelined", "--run-id", "h")
    assert code == EXIT_STOPPED
    monkeypatch.undo()
    where = ["--checkpoint", str(tmp_path / "r.db"), "--progress", "none"]
    code, _, err = _call(capsys, "sort", "--resume", "h", *where, "--schedule", "rounds")
    assert code == EXIT_USAGE
    assert "--schedule 'rounds' differs from the stored run's 'pipelined'" in err
    code, out, err = _call(capsys, "sort", "--resume", "h", *where)
    assert code == EXIT_OK, err
    assert out.splitlines()[0].split()[-1] == "57"


def test_a_schedule_that_cannot_play_the_run_is_refused_before_any_call(
    tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(MockLLMProvider, "compare_call", _revoked)  # any call would fail
    code, _, err = _call(capsys, *_common(tmp_path), "--schedule", "pipelined",
                         "--strategy", "swiss")
    assert code == EXIT_USAGE
    assert "--schedule pipelined: schedule='pipelined' cannot play strategy='swiss'" in err
    assert not (tmp_path / "r.db").exists()  # nothing was stored either
    with pytest.raises(SystemExit) as exited:
        main([*_common(tmp_path), "--schedule", "parallel"])
    assert exited.value.code == EXIT_USAGE
    assert "invalid choice: 'parallel'" in capsys.readouterr().err
