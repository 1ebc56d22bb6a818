"""The last round line of an elimination run: its winner left, or why no one is."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_qualitative_sort.cli import main


def _last_round(tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> tuple[str, str]:
    items = tmp_path / "items.txt"
    items.write_text("".join(f"text number {i}\n" for i in range(1, 17)))
    assert main(["sort", str(items), "--criteria", "good", "--checkpoint",
                 str(tmp_path / "runs.sqlite3"), "--progress", "lines", "--seed", str(seed),
                 "--run-id", f"s{seed}"]) == 0
    out, err = capsys.readouterr()
    return [line for line in err.splitlines() if line.startswith("round ")][-1], out


def test_a_final_won_leaves_its_winner(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    line, ranking = _last_round(tmp_path, capsys, seed=1)
    assert ", 1 left (" in line and not ranking.startswith("1=")


def test_a_final_draw_says_why_no_one_is_left(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 5: the final is a 1–1 draw between two players on their last life.
    line, ranking = _last_round(tmp_path, capsys, seed=5)
    assert line.startswith("round 5: 1 match, 0 left (a draw eliminated the last players: "
                           "ranked by wins)")
    assert ranking.startswith("1=")
