"""The command line refuses a checkpoint or report path it cannot use, before any call."""

from __future__ import annotations

import pytest

from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE, main
from llm_qualitative_sort.testing import MockLLMProvider


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


def test_out_into_a_missing_directory_is_refused_naming_it(capsys, items, tmp_path,
                                                          no_calls) -> None:
    out = tmp_path / "reprots" / "2026" / "r.json"  # a typo: the tree is "reports"
    code, err = _sort(capsys, items, "--out", str(out), "--checkpoint",
                      str(tmp_path / "runs.sqlite3"))
    assert code == EXIT_USAGE, err
    assert f"the directory {tmp_path / 'reprots'} does not exist" in err and "--mkdir" in err
    assert not (tmp_path / "reprots").exists()


@pytest.mark.parametrize("command", ["sort", "report"])
def test_mkdir_creates_the_out_directories(command, capsys, items, tmp_path) -> None:
    store = str(tmp_path / "runs.sqlite3")
    out = tmp_path / "new" / "deeper" / "r.csv"
    if command == "sort":
        code, err = _sort(capsys, items, "--out", str(out), "--mkdir", "--checkpoint", store)
    else:
        assert _sort(capsys, items, "--run-id", "r", "--checkpoint", store)[0] == EXIT_OK
        code = main(["report", "r", "--out", str(out), "--checkpoint", store])
        err = capsys.readouterr().err
        assert code == EXIT_USAGE and "does not exist" in err
        code = main(["report", "r", "--out", str(out), "--mkdir", "--checkpoint", store])
        err = capsys.readouterr().err
    assert code == EXIT_OK, err
    assert out.read_text(encoding="utf-8-sig").startswith("rank,")


@pytest.mark.parametrize(("flag", "value"), [
    ("--timeout", "inf"), ("--timeout", "nan"), ("--mock-latency", "inf"), ("--wait", "nan"),
    ("--wait", "-1"),
])
def test_a_number_that_cannot_be_used_is_refused_naming_the_flag(
    flag, value, capsys, items, tmp_path, no_calls
) -> None:
    store = tmp_path / "runs.sqlite3"
    code, err = _sort(capsys, items, flag, value, "--checkpoint", str(store))
    assert code == EXIT_USAGE, err
    assert err.startswith(f"error: {flag} must be") and not store.exists()


def test_a_cap_on_requests_is_refused_when_only_mocks_judge(capsys, items, no_calls) -> None:
    for judges in ([], ["--judge", "mock", "--judge", "mock"]):
        code, err = _sort(capsys, items, "--requests-per-second", "5", *judges)
        assert code == EXIT_USAGE
        assert err.startswith("error: --requests-per-second 5.0: the mock judge sends no "
                              "requests, so there is nothing to cap; drop it")


def test_the_mock_sends_probabilities_when_asked_so_soft_verdicts_run_offline(
        capsys, items, tmp_path, monkeypatch) -> None:
    soft = ["--strategy", "swiss", "--verdicts", "soft", "--checkpoint", str(tmp_path / "r.db")]
    code, err = _sort(capsys, items, *soft, "--mock-logprobs", "calibrated")
    assert code == EXIT_OK, err
    assert "soft verdicts: 100 % of the calls with a verdict" in err
    code, err = _sort(capsys, items, *soft)  # the plain mock sends none
    assert code == EXIT_OK and "soft verdicts: 100 %" not in err
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, err = _sort(capsys, items, "--provider", "openai", "--model", "m",
                      "--mock-logprobs", "overconfident")
    assert code == EXIT_USAGE
    assert err.startswith("error: --mock-logprobs overconfident: no judge is the mock")
