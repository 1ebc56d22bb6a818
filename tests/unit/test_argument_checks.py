"""Bad sorter arguments are refused when the sorter is made: named, nothing stored or paid."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from langgraph.types import RetryPolicy

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.tournament.checks import (
    check_concurrency,
    check_criteria,
    check_retry_policy,
    check_run_id,
    check_seed,
    check_timeout,
    check_wait,
)


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


@pytest.mark.parametrize(("check", "value", "error", "message"), [
    (check_seed, "7", TypeError, "^seed must be an int or None, got str$"),
    (check_seed, True, TypeError, "seed must be an int or None, got bool"),
    (check_seed, 7.0, TypeError, "seed must be an int"),
    (check_seed, np.int64(7), TypeError, "seed must be an int"),
    (check_seed, 2**63, ValueError, r"seed must fit in 64 bits .*, got 9223372036854775808"),
    (check_seed, -(2**63) - 1, ValueError, "seed must fit in 64 bits"),
    (check_concurrency, True, TypeError, "max_concurrent_requests must be an int, got bool"),
    (check_concurrency, "3", TypeError, "max_concurrent_requests must be an int, got str"),
    (check_concurrency, 0, ValueError, "max_concurrent_requests must be >= 1, got 0"),
    (check_retry_policy, RetryPolicy(max_attempts=2.0), TypeError,  # type: ignore[arg-type]
     r"retry_policy\.max_attempts must be an int, got float"),
    (check_retry_policy, RetryPolicy(max_attempts=0), ValueError,
     r"retry_policy\.max_attempts must be >= 1, got 0"),
    # Rules whose pydantic types would take more than they do: a Decimal or numpy's bool
    # for seconds, U+001C for a text that is not blank.
    (check_timeout, Decimal("5"), TypeError, "call_timeout must be seconds"),
    (check_wait, np.bool_(True), TypeError, "wait_for_run must be seconds"),
    (check_run_id, "\x1c", ValueError, "run_id must be a non-empty str"),
    (check_criteria, "\x1c", ValueError, "criteria must not be empty"),
])
def test_each_argument_check_refuses_what_it_did(check, value, error, message) -> None:
    with pytest.raises(error, match=message):
        check(value)


@pytest.mark.parametrize(("check", "value"), [
    (check_seed, None), (check_seed, 2**63 - 1), (check_seed, -(2**63)),
    (check_concurrency, 10**30), (check_run_id, "a\ud800"),
    (check_retry_policy, RetryPolicy(max_attempts=1)),
])
def test_each_argument_check_takes_what_it_did(check, value) -> None:
    check(value)
