"""The command line, called in-process (and through `python -m` where a process matters)."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

import pytest

from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE, main
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(n) for n in range(10, 200, 10)]  # 19 items


def _ranked_items(stdout: str) -> list[str]:
    return [line.split(None, 1)[1] for line in stdout.splitlines()]


def _sort(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["sort", "--criteria", "larger", "--seed", "3", "--progress", "none", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_prints_the_bundled_ranking(capsys, tmp_path) -> None:
    assert main(["demo", "--out", str(tmp_path / "demo.html")]) == EXIT_OK
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 16 and lines[0].split()[0] == "1"
    assert "run id" in err and (tmp_path / "demo.html").exists()


def test_the_three_file_formats_and_stdin_give_the_same_ranking(capsys, tmp_path,
                                                               monkeypatch) -> None:
    (tmp_path / "a.txt").write_text("\n".join(ITEMS) + "\n\n", encoding="utf-8")
    (tmp_path / "a.jsonl").write_text(
        "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(ITEMS)))
    (tmp_path / "a.csv").write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in
                                                          enumerate(ITEMS)))
    rankings = []
    for args in (["a.txt"], ["a.jsonl", "--field", "text"], ["a.csv", "--column", "text"],
                 ["a.csv"], ["a.jsonl"]):  # a "text" column or field unless one is named
        code, out, _ = _sort(capsys, str(tmp_path / args[0]), *args[1:])
        assert code == EXIT_OK
        rankings.append(out)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(ITEMS)))
    code, out, _ = _sort(capsys)
    rankings.append(out)
    assert code == EXIT_OK and len(set(rankings)) == 1
    assert sorted(_ranked_items(rankings[0])) == sorted(ITEMS)
    assert _ranked_items(rankings[0])[0] in ("190", "180", "170")


@pytest.mark.parametrize(("name", "separator"), [
    ("a.csv", ";"),  # as spreadsheets write CSV in many locales
    ("a.csv", "\t"),
    ("a.tsv", "\t"),
])
def test_a_table_separated_otherwise_than_by_commas_reads_the_same(
    capsys, tmp_path, name, separator
) -> None:
    rows = "".join(f"{i}{separator}{t}, or so\n" for i, t in enumerate(ITEMS))
    (tmp_path / "c.csv").write_text("id,text\n" + "".join(f'{i},"{t}, or so"\n' for i, t in
                                                          enumerate(ITEMS)))
    (tmp_path / name).write_text(f"\ufeffid{separator}text\n{rows}", encoding="utf-8")
    outputs = []
    for path in (tmp_path / "c.csv", tmp_path / name):
        code, out, err = _sort(capsys, str(path), "--column", "text", "--id-column", "id")
        assert code == EXIT_OK, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert sorted(line.split(None, 2)[2] for line in outputs[1].splitlines()) == sorted(
        f"{t}, or so" for t in ITEMS)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_file_with_its_byte_order_mark_reads_as_its_utf8_twin(capsys, tmp_path,
                                                                       encoding) -> None:
    # Windows' Notepad and Excel save "Unicode" text as UTF-16 with a byte-order mark.
    lines = "id,text\r\n" + "".join(f"{i},{t} é\r\n" for i, t in enumerate(ITEMS))
    (tmp_path / "plain.csv").write_text(lines, encoding="utf-8", newline="")
    mark = b"\xff\xfe" if encoding == "utf-16" else b"\xfe\xff"
    body = lines.encode("utf-16-le" if encoding == "utf-16" else encoding)
    (tmp_path / "wide.csv").write_bytes(mark + body)
    outputs = []
    for name in ("plain.csv", "wide.csv"):
        code, out, err = _sort(capsys, str(tmp_path / name), "--column", "text")
        assert code == EXIT_OK, err
        outputs.append(out)
    assert outputs[0] == outputs[1] and " é" in outputs[1]


def test_a_file_in_another_encoding_is_refused_saying_where_and_what_to_do(capsys,
                                                                          tmp_path) -> None:
    (tmp_path / "latin.txt").write_bytes("caf\u00e9\nth\u00e9\n".encode("latin-1"))
    code, out, err = _sort(capsys, str(tmp_path / "latin.txt"))
    assert code == EXIT_USAGE and out == ""
    assert "is not UTF-8 text (byte 0xe9 at offset 3); save it as UTF-8" in err


def test_out_writes_the_report_the_extension_names(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(ITEMS)))
    code, _, err = _sort(capsys, "--out", str(tmp_path / "r.json"), "--run-id", "r1")
    assert code == EXIT_OK and "report written" in err
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["run_id"] == "r1" and report["settings"]["seed"] == 3
    assert len(report["standings"]) == len(ITEMS)


def test_dry_run_prints_bounds_and_cost_and_calls_nothing(capsys, tmp_path, monkeypatch) -> None:
    async def refuse(*args, **kwargs):
        raise AssertionError("a dry run must not call the judge")

    monkeypatch.setattr(MockLLMProvider, "compare_call", refuse)
    (tmp_path / "a.txt").write_text("\n".join(ITEMS[:16]))
    code = main(["sort", str(tmp_path / "a.txt"), "--dry-run", "--comparison-rounds", "4",
                 "--criteria", "larger",
                 "--price-per-call", "0.01"])
    out = capsys.readouterr().out
    assert code == EXIT_OK
    assert "matches: 30 … 31" in out and "LLM calls: 120 … 124" in out
    assert "cost: at most 1.2400" in out
    assert not (tmp_path / "home").exists()  # nothing stored either


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sort", "x.txt"], "--criteria is required"),
        (["sort", "--criteria", "c", "{dir}/a.jsonl"],
         "a.jsonl: a .jsonl input needs --field NAME when its records have no 'text' field "
         "(the first one's fields: t)"),
        (["sort", "--criteria", "c", "{dir}/n.jsonl", "--field", "t"],
         "n.jsonl:2: field 't' holds a number, not a string"),
        (["sort", "--criteria", "c", "{dir}/n.jsonl", "--field", "u"],
         "n.jsonl:1: field 'u' holds null, not a string"),
        (["sort", "--criteria", "c", "{dir}/a.csv", "--column", "nope"], "no column 'nope'"),
        (["sort", "--criteria", "c", "{dir}/a.csv"],
         "a.csv: no column 'text': name the column holding the texts with --column NAME "
         "(columns: t)"),
        (["sort", "--criteria", "c", "{dir}/dup.txt"], "dup.txt:3: repeats line 1"),
        (["sort", "--criteria", "c", "{dir}/dup.txt", "--dry-run"], "dup.txt:3: repeats line 1"),
        (["sort", "--criteria", "c", "{dir}/empty.txt"], "empty.txt: no items to sort"),
        (["sort", "--criteria", "c", "{dir}/a.txt", "--out", "{dir}/a.txt/r.json"],
         "is a file, not a directory"),
        (["sort", "--criteria", "c", "--resume", "nope"], "no run 'nope'"),
        (["sort", "--criteria", "c", "--resume", "r", "{dir}/a.csv"], "--resume continues"),
        (["sort", "--criteria", "c", "{dir}/a.txt", "--comparison-rounds", "3"], "even"),
        (["sort", "--criteria", "c", "{dir}/a.txt", "--out", "r.pdf"], "report format"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, tmp_path, args, message) -> None:
    for name, text in {"a.txt": "1\n2\n", "a.jsonl": '{"t": "1"}\n', "a.csv": "t\n1\n",
                       "n.jsonl": '{"t": "1", "u": null}\n{"t": 2, "u": "x"}\n',
                       "dup.txt": "1\n2\n1\n", "empty.txt": "\n \n"}.items():
        (tmp_path / name).write_text(text)
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    code = main([*args, "--progress", "none", "--checkpoint", str(tmp_path / "runs.db")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert message in err and err.startswith("error: ") and "Traceback" not in err
    assert not (tmp_path / "runs.db").exists()  # nothing ran, nothing was stored


def test_a_missing_provider_says_what_to_install(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_openai", None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "a.txt").write_text("1\n2\n")
    code = main(["sort", str(tmp_path / "a.txt"), "--criteria", "c", "--provider", "openai"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and 'pip install -e ".[openai]"' in err
    assert 'pip install "llm-qualitative-sort' not in err  # PyPI's name is another project


def test_verbose_adds_the_traceback(capsys, tmp_path) -> None:
    (tmp_path / "dup.txt").write_text("1\n1\n")
    assert main(["sort", str(tmp_path / "dup.txt"), "--criteria", "c", "-v"]) == EXIT_USAGE
    assert "Traceback" in capsys.readouterr().err


async def _revoked(self, item_a, item_b, criteria, *, repetition):
    raise PermanentProviderError("401 invalid api key")


def test_a_stopped_run_prints_its_resume_command_which_finishes_it(capsys, tmp_path,
                                                                   monkeypatch) -> None:
    (tmp_path / "a.txt").write_text("\n".join(ITEMS))
    checkpoint = str(tmp_path / "runs.db")
    # The run's own judge, its key revoked: a resume must be made by the judge that started.
    monkeypatch.setattr(MockLLMProvider, "compare_call", _revoked)
    code, _, err = _sort(capsys, str(tmp_path / "a.txt"), "--checkpoint", checkpoint,
                         "--run-id", "stopped-1")
    assert code == EXIT_STOPPED
    started, first, *rest = err.splitlines()
    assert started.startswith("run stopped-1 started (19 items, seed 3,")
    assert first.startswith("run stopped: PermanentProviderError: 401 invalid api key; judge ")
    command = shlex.split(rest[-1])
    # The settings are kept with the run: the command needs only its id and where it is.
    assert command == ["llm-qualitative-sort", "sort", "--resume", "stopped-1",
                       "--checkpoint", str(Path(checkpoint).resolve())]
    monkeypatch.undo()
    assert main([*command[1:], "--progress", "none"]) == EXIT_OK
    out = capsys.readouterr().out
    assert sorted(_ranked_items(out)) == sorted(ITEMS)


def test_one_item_is_ranked_and_nothing_is_said_to_be_kept(capsys, tmp_path) -> None:
    source = tmp_path / "one.txt"
    source.write_text("the only essay\n", encoding="utf-8")
    db = tmp_path / "runs.sqlite3"
    code, out, err = _sort(capsys, str(source), "--checkpoint", str(db), "--run-id", "alone")
    assert code == EXIT_OK
    assert _ranked_items(out) == ["the only essay"]
    assert "run alone: 1 item, nothing to compare" in err
    assert "0 LLM calls" in err and "nothing to keep" in err
    assert "kept in" not in err and "checkpoint" not in err
    # Nothing was stored, and nothing is listed as if it had been.
    assert main(["runs", "list", "--checkpoint", str(db)]) == EXIT_OK
    assert "alone" not in capsys.readouterr().out
