"""A real small model (SmolLM2-135M) behind llama-cpp-python's OpenAI-compatible server.

The server refuses OpenAI's `json_schema` with HTTP 500; the provider must fall back, keep the
method that works, and sort to the end with valid verdicts. The model is weak (it prefers a
position), so these tests check the protocol and the audit, never the ranking's quality.
They need the server (see `_local_model.py`): CI installs it and fails without it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import _forked as forked
import pytest
from _local_model import LocalModel

from llm_qualitative_sort import OpenAIProvider, QualitativeSorter, SortResult

TEXTS = [
    "Water boils at 100 degrees Celsius at sea level.",
    "The moon is made of cheese.",
    "Plants make sugar from light, water and carbon dioxide.",
    "Cats are a kind of fish.",
]
CRITERIA = "which statement is true"
REFUSED = re.compile(r'"POST /v1/chat/completions HTTP/1.1" 500')
ANSWERED = re.compile(r'"POST /v1/chat/completions HTTP/1.1" 200')
CONCURRENCY = 2
# The server is slow on two shared cores; the engine's own deadline stays above ours.
TIMEOUT = 240.0


def server_requests(model: LocalModel, since: int) -> tuple[int, int]:
    """(refused, answered) chat requests in the server's log after offset `since`."""
    text = model.log_text()[since:]
    return len(REFUSED.findall(text)), len(ANSWERED.findall(text))


def assert_valid_run(ranked: list[str], calls: int, failed: int, rounds_without: int) -> None:
    assert sorted(ranked) == sorted(TEXTS)  # the sort went to the end
    assert calls >= 3
    assert failed == rounds_without  # every call without a verdict is visible as such
    assert failed * 6 <= calls, f"{failed} of {calls} calls gave no verdict"


def without_verdict(result: SortResult) -> int:
    return sum(r.winner is None for m in result.match_history for r in m.rounds)


async def test_a_real_local_model_sorts_through_the_openai_provider(
    local_model: LocalModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server takes no key
    provider = OpenAIProvider(base_url=local_model.url, model=local_model.model,
                              timeout=TIMEOUT)
    since = len(local_model.log_text())
    sorter = QualitativeSorter(provider, criteria=CRITERIA, elimination_count=1, seed=1,
                               max_concurrent_requests=CONCURRENCY, call_timeout=TIMEOUT + 30,
                               checkpointer=tmp_path / "runs.sqlite3")
    result = await sorter.sort(TEXTS)
    # The provider keeps its HTTP client for the loop's later calls and never closes it; the
    # server keeps connections alive, so close it here (an unclosed socket fails the suite).
    await provider._loop_state().chat.http_async_client.aclose()  # type: ignore[attr-defined]
    stats = result.statistics
    ranked = [item for _, group in result.rankings for item in group]
    assert_valid_run(ranked, stats.total_api_calls, stats.failed_calls, without_verdict(result))
    # json_schema was refused (at most once per concurrent first call), then never asked.
    assert provider.method != "json_schema"
    refused, answered = server_requests(local_model, since)
    assert 1 <= refused <= CONCURRENCY
    # Each paid call is one answered request, or two when its first answer had no verdict.
    assert stats.total_api_calls <= answered <= stats.total_api_calls * (1 + provider.reasks)
    # The audit covers the real judge: its calls, failures and tokens.
    [judge] = stats.judges
    assert (judge.calls, judge.failed_calls) == (stats.total_api_calls, stats.failed_calls)
    assert stats.input_tokens > 100 * stats.total_api_calls


def test_a_real_local_model_sorts_through_the_cli(
    local_model: LocalModel, tmp_path: Path
) -> None:
    source = tmp_path / "texts.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS), "utf-8")
    since = len(local_model.log_text())
    # A process of its own (forked from one that has imported the package, see _forked.py),
    # as a user runs it, with no key in its environment.
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["LLM_QUALITATIVE_SORT_HOME"] = str(tmp_path / "home")
    done = forked.run(
        [sys.executable, "-m", "llm_qualitative_sort", "sort", str(source), "--field", "text",
         "--criteria", CRITERIA, "--provider", "openai", "--base-url", local_model.url,
         "--model", local_model.model, "--elimination-count", "1", "--seed", "1",
         "--concurrency", str(CONCURRENCY), "--timeout", str(TIMEOUT), "--progress", "lines",
         "--checkpoint", str(tmp_path / "runs.db"), "--out", str(tmp_path / "result.json")],
        env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr
    assert "retrying" not in done.stderr  # the refusal was no transient failure
    report = json.loads((tmp_path / "result.json").read_text("utf-8"))
    stats = report["statistics"]
    ranked = [text for entry in report["rankings"] for text in entry["items"]]
    rounds_without = sum(r["winner"] is None for m in report["match_history"]
                         for r in m["rounds"])
    assert_valid_run(ranked, stats["total_api_calls"], stats["failed_calls"], rounds_without)
    refused, _ = server_requests(local_model, since)
    assert 1 <= refused <= CONCURRENCY
