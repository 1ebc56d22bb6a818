"""Config file, environment and flags; ids, line numbers and duplicates in the input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from _suite import cli as _call
from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE


def _settings(capsys, db: Path, run_id: str) -> dict:
    code, out, _ = _call(capsys, "runs", "show", run_id, "--json", "--checkpoint", str(db))
    assert code == EXIT_OK
    return json.loads(out)["settings"]


def test_flags_win_over_the_environment_which_wins_over_the_config_file(
        capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "runs.db"
    Path("llm-qualitative-sort.toml").write_text(
        'criteria = "larger"\nelimination-count = 3\nconcurrency = 2\n'
        f'checkpoint = "{db}"\nprogress = "none"\n', encoding="utf-8")
    Path("a.txt").write_text("1\n2\n3\n4\n")
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CONCURRENCY", "5")
    assert _call(capsys, "sort", "a.txt", "--run-id", "r1")[0] == EXIT_OK
    kept = _settings(capsys, db, "r1")
    assert (kept["criteria"], kept["elimination_count"], kept["concurrency"]) == ("larger", 3, 5)
    assert _call(capsys, "sort", "a.txt", "--run-id", "r2", "--concurrency", "7",
                 "--elimination-count", "1")[0] == EXIT_OK
    kept = _settings(capsys, db, "r2")
    assert (kept["elimination_count"], kept["concurrency"]) == (1, 7)


@pytest.mark.parametrize(("text", "message"), [
    ('colour = "blue"\n', "unknown setting 'colour'"),
    ("concurrency = 'ten'\n", "concurrency: expected a whole number, got 'ten'"),
    ("ties = 'yes'\n", "ties: expected true or false, got 'yes'"),
    ("budget = 2.5\n", "budget: expected a whole number, got 2.5"),
    ("criteria = \n", "not valid TOML"),
    ('strategy = "round-robin"\n',
     "strategy: expected one of elimination, swiss, pointwise, got 'round-robin'"),
    ('progress = "bars"\n', "progress: expected one of auto, bar, lines, none, got 'bars'"),
])
def test_a_bad_config_file_names_itself_and_the_setting(capsys, tmp_path, monkeypatch, text,
                                                        message) -> None:
    monkeypatch.chdir(tmp_path)
    Path("llm-qualitative-sort.toml").write_text(text, encoding="utf-8")
    Path("a.txt").write_text("1\n2\n")
    code, _, err = _call(capsys, "sort", "a.txt", "--criteria", "c")
    assert code == EXIT_USAGE and "llm-qualitative-sort.toml" in err and message in err


def test_every_setting_a_config_file_may_give_is_read_with_its_declared_type(
        capsys, tmp_path) -> None:
    from typing import get_args, get_origin

    from llm_qualitative_sort.cli._config import RunConfig
    from llm_qualitative_sort.cli._settings import _FILE_KEYS, _choices, _ConfigFile

    def read_config_file(path: str) -> tuple[dict, str]:
        return _ConfigFile(RunConfig, path)(), path

    samples = {int: ("7", 7), float: ("2.5", 2.5), bool: ("true", True),
               dict: ("{ a = 1 }", {"a": 1}), list: ('["mock"]', ["mock"])}
    declared = {name: f.annotation for name, f in RunConfig.model_fields.items()}
    lines, expected = [], {}
    for name in sorted(_FILE_KEYS):
        kind = next((k for k in samples if k in (declared[name], get_origin(declared[name]),
                                                   *get_args(declared[name]))), str)
        text, value = samples.get(kind, ('"x"', "x"))
        if name in _choices():  # a setting of the flag's choices: the first of them
            text, value = f'"{_choices()[name][0]}"', _choices()[name][0]
        lines.append(f"{name.replace('_', '-')} = {text}")
        expected[name] = value
    path = tmp_path / "all.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings, _ = read_config_file(str(path))
    assert settings == expected
    # The Swiss settings were refused before ("unexpected value 6"): read end to end.
    (tmp_path / "a.txt").write_text("\n".join(str(n) for n in range(1, 9)) + "\n")
    path.write_text('criteria = "larger"\nstrategy = "swiss"\nbudget = 6\ntop-k = 2\n'
                    'stop-when-settled = true\nprogress = "none"\n', encoding="utf-8")
    db = tmp_path / "runs.db"
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--config", str(path),
                         "--checkpoint", str(db), "--run-id", "sw")
    assert code == EXIT_OK, err
    kept = _settings(capsys, db, "sw")
    assert (kept["budget"], kept["top_k"], kept["stop_when_settled"]) == (6, 2, True)


def test_a_bad_environment_variable_is_named(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n")
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CONCURRENCY", "many")
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c")
    assert code == EXIT_USAGE and "LLM_QUALITATIVE_SORT_CONCURRENCY='many'" in err
    monkeypatch.delenv("LLM_QUALITATIVE_SORT_CONCURRENCY")
    # A name outside the flag's choices: a clear error, not a KeyError from deep inside.
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_PROVIDER", "nope")
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c")
    assert code == EXIT_USAGE and err.strip() == (
        "error: LLM_QUALITATIVE_SORT_PROVIDER: expected one of mock, openai, google, "
        "langchain, got 'nope'")


def test_ids_travel_into_the_json_and_csv_reports(capsys, tmp_path) -> None:
    rows = [{"uid": f"essay-{n}", "body": f"{n * 7}"} for n in range(12)]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.jsonl"), "--field", "body",
                         "--id-field", "uid", "--criteria", "larger", "--progress", "none",
                         "--out", str(tmp_path / "r.json"))
    assert code == EXIT_OK, err
    standings = json.loads((tmp_path / "r.json").read_text("utf-8"))["standings"]
    assert {s["item"]: s["id"] for s in standings} == {r["body"]: r["uid"] for r in rows}
    # Without an id column, the line number: blank lines still count.
    (tmp_path / "a.txt").write_text("50\n\n20\n70\n", encoding="utf-8")
    code, _, _ = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "larger",
                       "--progress", "none", "--out", str(tmp_path / "r.csv"), "--no-excel")
    raw = (tmp_path / "r.csv").read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8"))))
    assert list(table[0])[:5] == ["rank", "id", "item", "wins", "losses"]
    assert {r["item"]: r["id"] for r in table} == {"50": "1", "20": "3", "70": "4"}


@pytest.mark.parametrize(("name", "text", "extra", "message"), [
    ("a.jsonl", '{"t": "a"}\n{"t": "b"}\n\n{"t": " "}\n', ["--field", "t"], "a.jsonl:4: empty"),
    ("a.jsonl", '{"t": "a"}\n{"t": "\\ud800"}\n', ["--field", "t"], "a.jsonl:2: the text holds"),
    ("a.csv", 't,k\n"a\nb",1\nc,1\n', ["--column", "t", "--id-column", "k"],
     "a.csv:4: id '1' already used on line 2"),
    ("a.csv", "t\nx\ny\nx\n", ["--column", "t"], "a.csv:4: repeats line 2"),
    ("a.txt", "x\n", ["--id-column", "k"], "a text file has no id field"),
    ("a.jsonl", '{"t": "a", "n": 1}\n', ["--field", "text"],
     "a.jsonl:1: no field 'text' (its fields: t, n)"),
])
def test_item_errors_name_the_files_line(capsys, tmp_path, name, text, extra, message) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, _, err = _call(capsys, "sort", str(tmp_path / name), "--criteria", "c", *extra,
                         "--checkpoint", str(tmp_path / "runs.db"))
    assert code == EXIT_USAGE and message in err, err
    assert not (tmp_path / "runs.db").exists()


def test_dedupe_drops_repeated_items_with_a_note(capsys, tmp_path) -> None:
    (tmp_path / "a.txt").write_text("5\n9\n5\n1\n9\n", encoding="utf-8")
    code, out, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "larger",
                           "--dedupe", "--progress", "none", "--dry-run")
    assert code == EXIT_OK and "items: 3" in out
    assert "dropped 2 duplicate items of" in err and "(lines 3, 5)" in err
    (tmp_path / "b.txt").write_text("5\n9\n5\n", encoding="utf-8")
    code, out, err = _call(capsys, "sort", str(tmp_path / "b.txt"), "--criteria", "larger",
                           "--dedupe", "--progress", "none", "--dry-run")
    assert code == EXIT_OK and "dropped 1 duplicate item of" in err and "(line 3)" in err


def test_the_langchain_provider_refuses_credentials_on_the_command_line(capsys, tmp_path,
                                                                        monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the chat model is built, not called
    (tmp_path / "a.txt").write_text("1\n2\n")
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                         "--provider", "langchain", "--chat-model",
                         "langchain_openai:ChatOpenAI", "--chat-model-arg", "api_key=sk-1")
    assert code == EXIT_USAGE and "through the environment" in err and "sk-1" not in err
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                         "--provider", "langchain", "--chat-model", "no_such_pkg:Model")
    assert code == EXIT_USAGE and "pip install no-such-pkg" in err
    assert "--chat-model 'no_such_pkg:Model' needs the module no_such_pkg, which" in err
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                         "--provider", "langchain", "--chat-model", "langchain_openai:Nope")
    assert code == EXIT_USAGE and "langchain_openai has no 'Nope'" in err
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                         "--provider", "langchain", "--chat-model", "langchain_openai:ChatOpenAI",
                         "--chat-model-arg", "temperature=0")
    assert code == EXIT_USAGE and "OPENAI_API_KEY" in err


@pytest.mark.parametrize(("flags", "message"), [
    (["--timeout", "0"], "--timeout must be a positive, finite number, got 0.0"),
    (["--requests-per-second", "inf"], "--requests-per-second must be a positive, finite"),
    (["--input-price-per-million", "-1"], "--input-price-per-million must be a finite number"),
    (["--output-price-per-million", "nan"], "--output-price-per-million must be a finite"),
    (["--rate-wait-limit", "-5"], "--rate-wait-limit must be a finite number >= 0"),
    (["--mock-latency", "-1"], "--mock-latency must be a finite number >= 0"),
    (["--price-per-call", "-2", "--dry-run"], "--price-per-call must be a finite number >= 0"),
    (["--price-per-call", "nan", "--dry-run"], "--price-per-call must be a finite number >= 0"),
])
def test_a_number_out_of_range_is_refused_before_anything_runs(capsys, tmp_path, flags,
                                                               message) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    code, out, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                           "--checkpoint", str(tmp_path / "runs.db"), *flags)
    assert code == EXIT_USAGE and message in err, err
    assert out == "" and not (tmp_path / "runs.db").exists()


def test_a_flags_table_replaces_the_config_files_table_whole(capsys, tmp_path,
                                                             monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the chat model is built, not called
    Path("llm-qualitative-sort.toml").write_text(
        'provider = "langchain"\nchat-model = "langchain_openai:ChatOpenAI"\n'
        '[chat_model_args]\napi_key = "sk-file"\n', encoding="utf-8")
    Path("a.txt").write_text("1\n2\n")
    code, _, err = _call(capsys, "sort", "a.txt", "--criteria", "c")
    assert code == EXIT_USAGE and "through the environment" in err and "sk-file" not in err
    # The flag's arguments are the chat model's arguments: none of the file's is added.
    code, _, err = _call(capsys, "sort", "a.txt", "--criteria", "c",
                         "--chat-model-arg", "temperature=0")
    assert code == EXIT_USAGE and "OPENAI_API_KEY" in err, err
    assert "through the environment" not in err


def test_a_config_file_named_on_the_command_line_must_exist(capsys, tmp_path) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n")
    for missing in (tmp_path / "nope.toml", tmp_path):
        code, out, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "c",
                               "--config", str(missing), "--checkpoint",
                               str(tmp_path / "runs.db"))
        assert code == EXIT_USAGE and out == ""
        assert err.startswith(f"error: cannot read config file {missing}: "), err
    assert not (tmp_path / "runs.db").exists()


def test_only_the_documented_variables_give_settings(capsys, tmp_path, monkeypatch) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    db = tmp_path / "runs.db"
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_ELIMINATION_COUNT", "5")
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CRITERIA", "smaller")
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CHAT_MODEL_ARGS", "not json")
    monkeypatch.setenv("llm_qualitative_sort_concurrency", "many")  # names are upper case
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_MODEL", "")  # empty: not given
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_CONCURRENCY", "3")
    code, _, err = _call(capsys, "sort", str(tmp_path / "a.txt"), "--criteria", "larger",
                         "--checkpoint", str(db), "--run-id", "r", "--progress", "none")
    assert code == EXIT_OK, err
    kept = _settings(capsys, db, "r")
    assert (kept["criteria"], kept["elimination_count"], kept["concurrency"],
            kept["model"], kept["chat_model_args"]) == ("larger", 2, 3, None, {})


def test_a_resumed_run_keeps_its_settings_over_the_environment_and_the_file(
        capsys, tmp_path, monkeypatch) -> None:
    from llm_qualitative_sort import PermanentProviderError
    from llm_qualitative_sort.cli import EXIT_STOPPED
    from llm_qualitative_sort.testing import MockLLMProvider

    async def revoked(self, item_a, item_b, criteria, *, repetition):
        raise PermanentProviderError("401 invalid api key")

    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text("\n".join(str(n) for n in range(1, 9)) + "\n")
    db = tmp_path / "runs.db"
    with monkeypatch.context() as patched:
        patched.setattr(MockLLMProvider, "compare_call", revoked)
        code, _, _ = _call(capsys, "sort", "a.txt", "--criteria", "larger", "--run-id", "r",
                           "--elimination-count", "3", "--checkpoint", str(db),
                           "--progress", "none")
    assert code == EXIT_STOPPED
    # Another judge and tournament in the environment and the file: the run's own are kept
    # (the environment's openai, without a key, could not even be built).
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_PROVIDER", "openai")
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_MODEL", "gpt-x")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    Path("llm-qualitative-sort.toml").write_text(
        'criteria = "smaller"\nelimination-count = 1\nprogress = "none"\n', encoding="utf-8")
    code, _, err = _call(capsys, "sort", "--resume", "r", "--checkpoint", str(db))
    assert code == EXIT_OK, err
    kept = _settings(capsys, db, "r")
    assert (kept["provider"], kept["model"], kept["criteria"], kept["elimination_count"]) == (
        "mock", None, "larger", 3)
