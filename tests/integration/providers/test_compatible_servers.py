"""OpenAI-compatible servers that refuse the structured-output form, with whatever status.

llama-cpp-python answers `response_format: json_schema` with HTTP 500 ("response_format type
should be 'text' or 'json_object'"), FastAPI-based servers with a 422, others with a 400.
Such a refusal is no answer: the provider asks again at once with the next method, keeps the
one that worked, and never lets the engine retry the refusal as a transient failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _fakes import FakeJudge
from _setup import KEY, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    FileCache,
    OpenAIProvider,
    PermanentProviderError,
    QualitativeSorter,
    TransientProviderError,
)

Served = tuple[str, FakeJudge, str]
STRUCTURED = {"json_schema", "function_calling", "json_mode"}
FAST = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=6, jitter=False,
                   retry_on=TransientProviderError)


@pytest.mark.parametrize("status", [400, 422, 500])
async def test_a_refused_json_schema_falls_back_at_once_whatever_the_status(
    served: Served, status: int
) -> None:
    kind, judge, url = served
    judge.reject, judge.reject_status = {"json_schema"}, status
    provider = make_provider(kind, url)
    a, b, c = list(judge.scores)[:3]
    first = await provider.compare(a, b, "c")
    second = await provider.compare(b, c, "c")
    assert (first.winner, second.winner) == (judge.winner((a, b)), judge.winner((b, c)))
    # One refusal, then the method that worked is kept: no call is asked twice in one form.
    assert judge.methods() == ["json_schema", "function_calling", "function_calling"]
    [rejection] = first.raw_response["rejected"]
    assert (rejection["method"], rejection["status"]) == ("json_schema", status)
    assert "rejected" not in second.raw_response
    # The refusal was not an answer: it costs no tokens.
    assert (first.input_tokens, first.output_tokens) == (100, 10)


async def test_a_server_that_takes_only_plain_text_is_judged_by_the_strict_parse(
    openai_judge: tuple[FakeJudge, str],
) -> None:
    judge, url = openai_judge
    judge.reject, judge.reject_status = STRUCTURED, 500
    provider = make_provider("openai", url)
    a, b, c = list(judge.scores)[:3]
    first = await provider.compare(a, b, "c")
    second = await provider.compare(b, c, "c")
    assert (first.winner, second.winner) == (judge.winner((a, b)), judge.winner((b, c)))
    assert judge.methods() == ["json_schema", "function_calling", "json_mode", "text", "text"]
    assert [r["method"] for r in first.raw_response["rejected"]] == [
        "json_schema", "function_calling", "json_mode"]
    assert first.raw_response["method"] == "text"


@pytest.mark.parametrize(
    "answer",
    ["I would say {winner}.", 'Winner: {winner}\n{{"reasoning": "x", "winner": "{winner}"}}',
     '{{"reasoning": "x", "winner": "{winner}"}} {{"reasoning": "y", "winner": "A"}}'],
    ids=["prose", "prose-and-json", "two-objects"],
)
async def test_plain_text_that_is_not_one_verdict_object_gives_no_verdict(
    openai_judge: tuple[FakeJudge, str], answer: str
) -> None:
    judge, url = openai_judge
    judge.reject, judge.reject_status, judge.text_answer = STRUCTURED, 500, answer
    provider = make_provider("openai", url, reasks=0)
    a, b = list(judge.scores)[:2]
    result = await provider.compare(a, b, "c")
    assert result.winner is None  # never a guess from the prose
    assert "not a JSON verdict" in result.reasoning


async def test_a_format_refusal_of_the_last_method_is_permanent_not_transient(
    openai_judge: tuple[FakeJudge, str],
) -> None:
    judge, url = openai_judge
    judge.reject, judge.reject_status = STRUCTURED | {"text"}, 500
    provider = make_provider("openai", url)
    a, b = list(judge.scores)[:2]
    with pytest.raises(PermanentProviderError, match=r"refused the request's format \(HTTP 500\)"):
        await provider.compare(a, b, "c")
    assert len(judge.seen) == 4  # each method once, no retry of a refusal


async def test_a_plain_500_is_still_transient_and_keeps_the_method(
    openai_judge: tuple[FakeJudge, str],
) -> None:
    judge, url = openai_judge
    judge.script = ["500"]  # "injected 500": an outage, which names no request field
    provider = make_provider("openai", url)
    a, b = list(judge.scores)[:2]
    with pytest.raises(TransientProviderError):
        await provider.compare(a, b, "c")
    assert await provider.compare(a, b, "c")
    assert judge.methods() == ["json_schema", "json_schema"]


async def test_a_sort_against_a_500_refusing_server_ends_without_retries(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path
) -> None:
    judge, url = openai_judge
    judge.reject, judge.reject_status = {"json_schema"}, 500
    provider = make_provider("openai", url)
    sorter = QualitativeSorter(provider, criteria="c", seed=1, retry_policy=FAST,
                               elimination_count=1, max_concurrent_requests=1,
                               checkpointer=tmp_path / "runs.sqlite3",
                               cache=FileCache(tmp_path / "cache"))
    result = await sorter.sort(items[:8])
    stats = result.statistics
    assert stats.failed_calls == 0
    # Every paid call was answered once; the single refusal is the only extra request.
    assert len(judge.seen) == stats.total_api_calls + 1
    assert judge.methods().count("json_schema") == 1


def test_a_key_is_needed_for_openai_but_not_for_another_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIProvider(base_url="https://api.openai.com/v1")
    local = OpenAIProvider(base_url="http://127.0.0.1:8080/v1", model="smollm2")
    assert local.model_identity == "OpenAIProvider:smollm2@http://127.0.0.1:8080/v1#prompt1"
    with pytest.raises(ValueError, match="batch mode"):
        OpenAIProvider(base_url="http://127.0.0.1:8080/v1", batch=True)
    assert OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:8080/v1", batch=True).batch
