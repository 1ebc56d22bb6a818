"""Bad sorter arguments are refused when the sorter is made: named, nothing stored or paid."""

from __future__ import annotations

import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter


def _sorter(**kwargs: object) -> QualitativeSorter:
    return QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kwargs", "error", "named"), [
    ({"retry_policy": 5}, TypeError, "retry_policy"),
    ({"retry_policy": RetryPolicy(max_attempts=0)}, ValueError, "retry_policy.max_attempts"),
    ({"retry_policy": RetryPolicy(initial_interval=-1.0)}, ValueError,
     "retry_policy.initial_interval"),
    ({"retry_policy": RetryPolicy(backoff_factor=float("nan"))}, ValueError,
     "retry_policy.backoff_factor"),
    ({"call_timeout": 10**400}, ValueError, "call_timeout"),
    ({"call_timeout": 1e300}, ValueError, "call_timeout"),
    ({"wait_for_run": "3"}, TypeError, "wait_for_run"),
    ({"wait_for_run": True}, TypeError, "wait_for_run"),
    ({"wait_for_run": float("nan")}, ValueError, "wait_for_run"),
    ({"wait_for_run": 10**400}, ValueError, "wait_for_run"),
    ({"checkpointer": ""}, ValueError, "checkpointer"),
    ({"checkpointer": "   "}, ValueError, "checkpointer"),
    ({"checkpointer": "mysql://user:pw@db/runs"}, ValueError, "checkpointer"),
    ({"checkpointer": "sqlite:///runs.db"}, ValueError, "checkpointer"),
])
def test_a_bad_argument_is_refused_naming_it_and_nothing_is_written(
    kwargs, error, named, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLM_QUALITATIVE_SORT_HOME", str(tmp_path / "home"))
    with pytest.raises(error, match=named.replace(".", r"\.")) as raised:
        _sorter(**kwargs)
    assert "pw" not in str(raised.value)  # a refused URI's password is not repeated
    assert list(tmp_path.iterdir()) == []  # no SQLite file named "mysql:" or anything else


def test_a_checkpointer_that_is_a_directory_is_refused_naming_it(tmp_path) -> None:
    with pytest.raises(ValueError, match=f"checkpointer.*{tmp_path}.*: it is a directory"):
        _sorter(checkpointer=tmp_path)


def test_good_values_are_kept(tmp_path) -> None:
    sorter = _sorter(retry_policy=RetryPolicy(max_attempts=1), call_timeout=10**6,
                     wait_for_run=2, checkpointer=tmp_path / "runs.sqlite3")
    assert sorter.wait_for_run == 2 and sorter.call_timeout == 10**6
    assert _sorter(wait_for_run=None, call_timeout=None, checkpointer=None).wait_for_run is None
