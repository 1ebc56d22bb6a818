"""One comparison call against a misbehaving server: what the provider raises or returns."""

from __future__ import annotations

import pytest
from _fakes import FakeJudge
from _setup import KEY, make_provider

from llm_qualitative_sort import PermanentProviderError, TransientProviderError

Served = tuple[str, FakeJudge, str]


async def compare(kind: str, judge: FakeJudge, url: str, **options: object):  # type: ignore[no-untyped-def]
    provider = make_provider(kind, url, **options)
    a, b = list(judge.scores)[:2]
    return await provider.compare(a, b, "which is more persuasive"), judge.winner((a, b))


@pytest.mark.parametrize(("header", "expected"), [("1", 1.0), (None, None)])
async def test_429_is_transient_with_retry_after(
    served: Served, header: str | None, expected: float | None
) -> None:
    kind, judge, url = served
    judge.always, judge.retry_after = "429", header
    with pytest.raises(TransientProviderError) as caught:
        await compare(kind, judge, url)
    assert caught.value.retry_after == expected
    assert len(judge.seen) == 1, "the client library must not retry on its own"


@pytest.mark.parametrize("fault", ["500", "503", "drop"])
async def test_server_errors_and_dropped_connections_are_transient(
    served: Served, fault: str
) -> None:
    kind, judge, url = served
    judge.always = fault
    with pytest.raises(TransientProviderError):
        await compare(kind, judge, url)
    assert len(judge.seen) == 1


async def test_slow_answer_times_out_as_transient(served: Served) -> None:
    kind, judge, url = served
    # Without the timeout the answer would arrive (after 1.5 s) and nothing would be raised.
    judge.always, judge.slow_seconds = "slow", 1.5
    with pytest.raises(TransientProviderError):
        await compare(kind, judge, url, timeout=0.3)


async def test_bad_key_is_permanent_and_never_quoted(served: Served) -> None:
    kind, judge, url = served
    wrong = "sk-wrong-KEY-0000777"
    with pytest.raises(PermanentProviderError) as caught:
        await compare(kind, judge, url, api_key=wrong)
    message = str(caught.value)
    assert "authentication failed (HTTP 401)" in message
    assert wrong not in message and KEY not in message


async def test_unknown_model_is_permanent(served: Served) -> None:
    kind, judge, url = served
    judge.model = "some-other-model"
    with pytest.raises(PermanentProviderError, match="unknown model"):
        await compare(kind, judge, url)


async def test_malformed_answer_is_asked_again(served: Served) -> None:
    kind, judge, url = served
    judge.script = ["malformed"]
    result, expected = await compare(kind, judge, url)
    assert result.winner == expected
    assert len(judge.seen) == 2
    assert result.raw_response["answers"] == 2
    assert (result.input_tokens, result.output_tokens) == (200, 20)  # both answers paid


@pytest.mark.parametrize("fault", ["malformed", "refusal"])
async def test_no_verdict_after_asking_again_gives_winner_none(
    served: Served, fault: str
) -> None:
    kind, judge, url = served
    judge.always = fault
    result, _ = await compare(kind, judge, url, reasks=2)
    assert result.winner is None
    assert "no usable verdict after 3 answer(s)" in result.reasoning
    assert result.raw_response["problem"]
    assert len(judge.seen) == 3


async def test_openai_refusal_is_kept_in_raw_response(openai_judge: tuple[FakeJudge, str]) -> None:
    judge, url = openai_judge
    judge.always = "refusal"
    result, _ = await compare("openai", judge, url)
    assert result.winner is None
    assert result.raw_response["refusal"] == "I can't help with comparing these texts."


async def test_rejected_json_schema_falls_back_and_is_remembered(served: Served) -> None:
    kind, judge, url = served
    judge.reject = {"json_schema"}
    provider = make_provider(kind, url)
    a, b, c = list(judge.scores)[:3]
    first = await provider.compare(a, b, "c")
    second = await provider.compare(b, c, "c")
    assert (first.winner, second.winner) == (judge.winner((a, b)), judge.winner((b, c)))
    assert judge.methods() == ["json_schema", "function_calling", "function_calling"]
    assert first.raw_response["method"] == "function_calling"


async def test_strict_text_parse_is_the_last_resort(served: Served) -> None:
    kind, judge, url = served
    judge.reject = {"json_schema", "function_calling", "json_mode"}
    result, expected = await compare(kind, judge, url)
    assert result.winner == expected
    assert judge.methods()[-1] == "text"
    assert result.raw_response["method"] == "text"


async def test_request_rejected_by_every_method_is_permanent(served: Served) -> None:
    kind, judge, url = served
    judge.reject = {"json_schema", "function_calling", "json_mode", "text"}
    with pytest.raises(PermanentProviderError, match=r"invalid request \(HTTP 400\)"):
        await compare(kind, judge, url)


async def test_a_truncated_200_body_is_transient_and_names_the_endpoint(served: Served) -> None:
    kind, judge, url = served
    judge.always = "truncated"
    with pytest.raises(TransientProviderError) as caught:
        await compare(kind, judge, url)
    message = str(caught.value)
    model = "gemini-3.0" if kind == "google" else "gpt-5.1"
    assert f"model '{model}' at {url}" in message
    assert "cannot be read" in message and "JSONDecodeError" in message
    assert len(judge.seen) == 1


@pytest.mark.parametrize("kind", ["openai", "langchain"])
async def test_a_200_without_choices_is_transient_and_names_the_endpoint(
    openai_judge: tuple[FakeJudge, str], kind: str
) -> None:
    judge, url = openai_judge
    judge.always = "no_choices"
    with pytest.raises(TransientProviderError) as caught:
        await compare(kind, judge, url)
    message = str(caught.value)
    assert f"model 'gpt-5.1' at {url}" in message and "without a completion" in message
    assert len(judge.seen) == 1


async def test_a_gemini_answer_without_candidates_is_a_call_without_verdict(
    gemini_judge: tuple[FakeJudge, str],
) -> None:
    # Gemini leaves out candidates when it blocks a prompt (promptFeedback): a refusal of
    # these texts, handled like any refusal.
    judge, url = gemini_judge
    judge.always = "no_choices"
    result, _ = await compare("google", judge, url)
    assert result.winner is None and "no usable verdict" in result.reasoning
    assert len(judge.seen) == 2
