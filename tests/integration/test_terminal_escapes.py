"""No item text, id, run id, path or provider message can steer the terminal it is printed on.

An input file can hold escape sequences (clear the screen, set the window title, plant a
hyperlink whose shown text is not its target), 8-bit C1 controls and bidi overrides: the
command line shows each as a visible escape, wherever it prints.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from _suite import cli
from llm_qualitative_sort import TransientProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE
from llm_qualitative_sort.cli._progress import make_progress
from llm_qualitative_sort.models import EventType, ProgressEvent

LINK = "\x1b]8;;http://evil.example/\x07a hidden link\x1b]8;;\x07"
HOSTILE = [
    f"first {LINK} text",
    "clears\x1b[2J\x1b[H the screen",
    "sets\x1b]0;pwned\x07 the title",
    "an 8-bit\x9b31m CSI and\x7f DEL",
    "a bidi \u202eoverride\u202c and \u2067isolate\u2069",
    "a plain text",
]
RUN_ID = "run\x1b]0;title\x07id"
# Any character a terminal obeys; LF only ends the lines the command line prints itself.
OBEYED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _obeyed(*outputs: str) -> list[str]:
    return [found for text in outputs for found in OBEYED.findall(text)]


def _items(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    rows = [{"id": f"k{n}\x1b[31m", "text": text} for n, text in enumerate(HOSTILE)]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return items


def _sorted(tmp_path: Path, capsys) -> tuple[Path, str, str]:
    db = tmp_path / "runs.db"
    code, out, err = cli(capsys, "sort", str(_items(tmp_path)), "--field", "text",
                         "--id-field", "id", "--criteria", "longer", "--run-id", RUN_ID,
                         "--checkpoint", str(db), "--progress", "lines", "--seed", "3",
                         "--out", str(tmp_path / "r.json"))
    assert code == EXIT_OK, err
    return db, out, err


def test_the_ranking_summary_and_progress_show_escapes_not_controls(tmp_path, capsys) -> None:
    _, out, err = _sorted(tmp_path, capsys)
    assert _obeyed(out, err) == []
    # Shown, not dropped: the reader sees the hidden link is there.
    assert "\\x1b]8;;http://evil.example/\\x07a hidden link" in out
    assert "[k0\\x1b[31m]" in out and "\\u202eoverride" in out and "\\x9b31m" in out
    assert "run id run\\x1b]0;title\\x07id" in err
    # The report keeps the texts as they were.
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert {item for entry in report["rankings"] for item in entry["items"]} == set(HOSTILE)


def test_runs_list_show_and_report_show_escapes_not_controls(tmp_path, capsys) -> None:
    db, _, _ = _sorted(tmp_path, capsys)
    where = ("--checkpoint", str(db))
    outputs = [cli(capsys, "runs", "list", *where), cli(capsys, "runs", "show", RUN_ID, *where),
               cli(capsys, "report", RUN_ID, "--out", str(tmp_path / "again.csv"), *where)]
    assert [code for code, _, _ in outputs] == [EXIT_OK] * 3
    assert _obeyed(*(text for _, out, err in outputs for text in (out, err))) == []
    assert "run\\x1b]0;title\\x07id" in outputs[0][1]  # the run id in the list
    assert "\\x1b[2J\\x1b[H the screen" in outputs[1][1]  # a text of the ranking
    code, listed, _ = cli(capsys, "runs", "list", "--json", *where)
    code, shown, _ = cli(capsys, "runs", "show", RUN_ID, "--json", *where)
    assert _obeyed(listed, shown) == []
    # Still JSON, and the same strings once read.
    assert json.loads(listed)["run_id"] == json.loads(shown)["run_id"] == RUN_ID


def test_errors_and_notes_quoting_input_show_escapes(tmp_path, capsys) -> None:
    odd = tmp_path / "odd\x1b]0;t\x07"
    odd.mkdir()
    missing = odd / "missing.txt"
    code, _, err = cli(capsys, "sort", str(missing), "--criteria", "c", "--progress", "none")
    assert code == EXIT_USAGE and "odd\\x1b]0;t\\x07" in err and _obeyed(err) == []
    doubled = odd / "items.txt"
    doubled.write_text("a \x1b[2J\na \x1b[2J\nb\n", encoding="utf-8")
    code, out, err = cli(capsys, "sort", str(doubled), "--criteria", "c", "--dedupe",
                         "--dry-run")
    assert code == EXIT_OK and "dropped 1 duplicate item" in err
    assert _obeyed(out, err) == []
    code, _, err = cli(capsys, "sort", str(doubled), "--criteria", "c", "-v")
    assert code == EXIT_USAGE and "Traceback" in err and _obeyed(err) == []


def test_progress_lines_show_a_providers_words_as_escapes() -> None:
    out = io.StringIO()
    progress = make_progress("lines", stream=out)
    progress.retrying(TransientProviderError("503 \x1b]0;gone\x07 try later"))
    progress(ProgressEvent(EventType.RATE_LIMIT, "waiting for \x1b[2Jjudge", 0, 0, data={}))
    assert _obeyed(out.getvalue()) == []
    assert "503 \\x1b]0;gone\\x07 try later" in out.getvalue()
    assert "waiting for \\x1b[2Jjudge" in out.getvalue()


def test_a_usage_error_quoting_an_argument_shows_escapes(capsys) -> None:
    from llm_qualitative_sort.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["sort", "--criteria", "c", "a.txt", "\x1b]0;title\x07"])
    assert stop.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unrecognized arguments: \\x1b]0;title\\x07" in err and _obeyed(err) == []
