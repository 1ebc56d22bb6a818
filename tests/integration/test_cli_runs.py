"""`runs list/show/rm/prune`, `report RUN_ID` and `sort --resume` on real stored runs."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from _suite import cli as _call
from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(n) for n in range(5, 200, 5)]  # 39 items


async def _revoked(self, item_a, item_b, criteria, *, repetition):
    raise PermanentProviderError("401 invalid api key")


@pytest.fixture
def store(tmp_path, capsys, monkeypatch) -> Path:
    """A checkpoint with a finished run `done` and a stopped run `halted`."""
    items = tmp_path / "items.csv"
    items.write_text("key,text\n" + "".join(f"k{n},{n}\n" for n in ITEMS), encoding="utf-8")
    db = tmp_path / "runs.db"
    common = ["sort", str(items), "--column", "text", "--id-column", "key", "--criteria",
              "larger", "--checkpoint", str(db), "--progress", "none", "--seed", "4"]
    code, _, _ = _call(capsys, *common, "--run-id", "done", "--input-price-per-million", "2",
                       "--out", str(tmp_path / "done.json"))
    assert code == EXIT_OK
    # The run's own judge, its key revoked: a resume must be made by the judge that started.
    monkeypatch.setattr(MockLLMProvider, "compare_call", _revoked)
    code, _, _ = _call(capsys, *common, "--run-id", "halted", "--elimination-count", "3")
    assert code == EXIT_STOPPED
    monkeypatch.undo()
    return db


def test_list_shows_every_run_with_its_state_and_calls(store, capsys, tmp_path) -> None:
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", str(store))
    assert code == EXIT_OK
    header, *rows = out.splitlines()
    assert header.split()[:3] == ["RUN", "ID", "STARTED"]
    assert [row.split()[0] for row in rows] == ["halted", "done"]  # newest first
    assert "finished" in rows[1] and "N=2" in rows[1] and "stopped" in rows[0]
    code, out, _ = _call(capsys, "runs", "list", "--json", "--checkpoint", str(store))
    listed = {entry["run_id"]: entry for entry in map(json.loads, out.splitlines())}
    report = json.loads((tmp_path / "done.json").read_text("utf-8"))
    assert listed["done"]["calls"] == report["statistics"]["total_api_calls"] > 0
    assert listed["done"]["items"] == len(ITEMS) and listed["done"]["state"] == "finished"
    assert listed["done"]["settings"]["input_price_per_million"] == 2.0
    assert listed["halted"]["calls"] == 0 and listed["halted"]["settings"]["elimination_count"] == 3


def test_show_tells_how_to_resume_and_resume_needs_no_settings(store, capsys) -> None:
    code, out, _ = _call(capsys, "runs", "show", "halted", "--checkpoint", str(store))
    assert code == EXIT_OK and "criteria:" in out and "larger" in out
    assert f"sort --resume halted --checkpoint {store}" in out
    # A different criterion or judge is refused; the same ones (or none) are fine.
    code, _, err = _call(capsys, "sort", "--resume", "halted", "--checkpoint", str(store),
                         "--criteria", "smaller")
    assert code == EXIT_USAGE and "--criteria 'smaller' differs from the stored run's" in err
    code, _, err = _call(capsys, "sort", "--resume", "halted", "--checkpoint", str(store),
                         "--model", "other")
    assert code == EXIT_USAGE and "--model" in err
    code, out, err = _call(capsys, "sort", "--resume", "halted", "--checkpoint", str(store),
                           "--criteria", "larger", "--progress", "none")
    assert code == EXIT_OK, err
    assert sorted(line.split()[-1] for line in out.splitlines()) == sorted(ITEMS)
    code, out, _ = _call(capsys, "runs", "list", "--json", "--checkpoint", str(store))
    states = {e["run_id"]: e["state"] for e in map(json.loads, out.splitlines())}
    assert states == {"done": "finished", "halted": "finished"}


def test_report_renders_a_stored_run_without_calling_the_judge(store, capsys, tmp_path,
                                                               monkeypatch) -> None:
    async def refuse(*args, **kwargs):
        raise AssertionError("report must not call the judge")

    monkeypatch.setattr(MockLLMProvider, "compare_call", refuse)
    for name in ("again.json", "again.csv", "again.html"):
        code, _, err = _call(capsys, "report", "done", "--out", str(tmp_path / name),
                             "--checkpoint", str(store))
        assert code == EXIT_OK, err
    first = json.loads((tmp_path / "done.json").read_text("utf-8"))
    again = json.loads((tmp_path / "again.json").read_text("utf-8"))
    assert again["rankings"] == first["rankings"] and again["standings"] == first["standings"]
    assert again["match_history"] == first["match_history"]
    raw = (tmp_path / "again.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel's byte-order mark, on by default
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert {row["item"]: row["id"] for row in rows} == {n: f"k{n}" for n in ITEMS}
    code, _, err = _call(capsys, "report", "halted", "--out", str(tmp_path / "x.json"),
                         "--checkpoint", str(store))
    assert code == EXIT_USAGE and "is stopped" in err


def _size(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def test_rm_and_prune_delete_runs_and_the_file_shrinks(store, capsys, tmp_path) -> None:
    items = tmp_path / "big.txt"
    items.write_text("\n".join(str(n) for n in range(400)), encoding="utf-8")
    code, _, _ = _call(capsys, "sort", str(items), "--criteria", "larger", "--run-id", "big",
                       "--checkpoint", str(store), "--progress", "none")
    assert code == EXIT_OK
    before = _size(store)
    code, out, err = _call(capsys, "runs", "rm", "big", "--checkpoint", str(store))
    assert code == EXIT_OK and "deleted run big" in out and "given back" in err
    assert _size(store) < before * 0.6  # the 400-item run was most of the file
    code, out, _ = _call(capsys, "runs", "prune", "--before", "2999-01-01", "--dry-run",
                         "--checkpoint", str(store))
    assert "would delete run done" in out and "halted" not in out
    code, out, _ = _call(capsys, "runs", "prune", "--before", "2999-01-01",
                         "--checkpoint", str(store))
    code, out, _ = _call(capsys, "runs", "list", "--json", "--checkpoint", str(store))
    assert [json.loads(line)["run_id"] for line in out.splitlines()] == ["halted"]
    code, _, err = _call(capsys, "runs", "rm", "nope", "--checkpoint", str(store))
    assert code == EXIT_USAGE and "no run 'nope'" in err


def test_runs_of_a_missing_file_or_a_file_that_is_not_sqlite(capsys, tmp_path) -> None:
    code, _, err = _call(capsys, "runs", "list", "--checkpoint", str(tmp_path / "none.db"))
    assert code == EXIT_OK and "no runs kept" in err
    (tmp_path / "junk.db").write_text("not a database " * 100)
    code, _, err = _call(capsys, "runs", "list", "--checkpoint", str(tmp_path / "junk.db"))
    assert code == EXIT_USAGE and "junk.db" in err and "Traceback" not in err


def test_a_new_sort_under_a_stored_runs_id_must_be_that_run(store, capsys, tmp_path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("1\n2\n3\n")
    code, _, err = _call(capsys, "sort", str(other), "--criteria", "larger", "--run-id",
                         "done", "--checkpoint", str(store), "--progress", "none")
    assert code == EXIT_USAGE and "holds 39 other items" in err
    code, out, _ = _call(capsys, "runs", "show", "done", "--json", "--checkpoint", str(store))
    assert json.loads(out)["settings"]["input_price_per_million"] == 2.0  # left as it was
    # The same items under the same id (no seed given: the stored one) return its result.
    items = tmp_path / "items.csv"
    code, out, err = _call(capsys, "sort", str(items), "--column", "text", "--id-column", "key",
                           "--criteria", "larger", "--run-id", "done", "--checkpoint",
                           str(store), "--progress", "none")
    assert code == EXIT_OK, err
    report = json.loads((tmp_path / "done.json").read_text("utf-8"))
    assert [line.split()[-1] for line in out.splitlines()][0] == report["rankings"][0]["items"][0]


def test_a_run_is_named_by_the_start_of_its_id(store, capsys, tmp_path) -> None:
    db = ["--checkpoint", str(store)]
    code, out, _ = _call(capsys, "runs", "show", "halt", *db)
    assert code == EXIT_OK and out.startswith("run id:              halted\n")
    assert "sort --resume halted" in out
    code, _, err = _call(capsys, "report", "don", "--out", str(tmp_path / "r.json"), *db)
    assert code == EXIT_USAGE and "no run 'don'" in err and "first 4 characters" in err
    # Two runs whose ids start alike: the start names neither, and says which it could be.
    code, _, _ = _call(capsys, "sort", "--resume", "halt", "--progress", "none", *db)
    assert code == EXIT_OK
    code, _, err = _call(capsys, "sort", str(tmp_path / "items.csv"), "--column", "text",
                         "--criteria", "larger", "--run-id", "halter", "--progress", "none",
                         *db)
    assert code == EXIT_OK, err
    for command in (["runs", "show", "halt"], ["runs", "rm", "halt"],
                    ["report", "halt", "--out", str(tmp_path / "r.json")],
                    ["sort", "--resume", "halt"]):
        code, _, err = _call(capsys, *command, *db)
        assert code == EXIT_USAGE and "'halt' starts the ids of 2 runs (halted, halter)" in err
    code, out, _ = _call(capsys, "runs", "show", "halte", *db)
    assert code == EXIT_USAGE
    code, out, err = _call(capsys, "report", "halted", "--out", str(tmp_path / "r.json"), *db)
    assert code == EXIT_OK and "report of run halted written" in err
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["run_id"] == "halted"
    code, out, _ = _call(capsys, "runs", "rm", "halte", "halted", *db)
    assert code == EXIT_USAGE
    code, out, _ = _call(capsys, "runs", "rm", "done", "halted", *db)
    assert code == EXIT_OK and out.splitlines() == ["deleted run done", "deleted run halted"]
    code, out, err = _call(capsys, "runs", "list", *db)
    assert [row.split()[0] for row in out.splitlines()[1:]] == ["halter"]
    assert "1 run in" in err


def test_show_gives_the_elapsed_time_in_seconds(store, capsys) -> None:
    code, out, _ = _call(capsys, "runs", "show", "done", "--checkpoint", str(store))
    shown = [line for line in out.splitlines() if line.startswith("elapsed time:")]
    assert code == EXIT_OK and len(shown) == 1
    assert shown[0].endswith(" s") and len(shown[0].split()[-2].split(".")[1]) == 1


def test_a_run_of_another_judge_resumed_from_the_command_line_says_what_to_do(
        capsys, tmp_path) -> None:
    import asyncio

    from llm_qualitative_sort import QualitativeSorter, RunStoppedError

    class Stops(MockLLMProvider):  # a judge of Python's own making (no score, other seed)
        async def compare_call(self, item_a, item_b, criteria, *, repetition=0):
            raise PermanentProviderError("out of credit")

    db = tmp_path / "py.db"
    sorter = QualitativeSorter(Stops(seed=11), criteria="larger", seed=1, checkpointer=str(db))
    with pytest.raises(RunStoppedError):
        asyncio.run(sorter.sort(ITEMS, run_id="py"))
    code, _, err = _call(capsys, "sort", "--resume", "py", "--checkpoint", str(db),
                         "--progress", "none")
    assert code == EXIT_USAGE
    assert "was started by the judge '" in err and "which these settings do not make" in err
    assert "await sorter.resume('py')" in err and "allow_judge_change" not in err
