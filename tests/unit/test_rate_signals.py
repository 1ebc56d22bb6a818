"""What a 429 says: rate or quota, when to come back, the limits — from the real clients'
exceptions (openai, google-genai, and the LangChain wrappers around them)."""

from __future__ import annotations

import httpx2
import openai
import pytest
from google.genai import errors as genai_errors
from hypothesis import given
from hypothesis import strategies as st
from langchain_google_genai.chat_models import GoogleRateLimitError
from langchain_openai.chat_models.base import OpenAIRateLimitError

from llm_qualitative_sort import QuotaExceededError, RateLimitedError
from llm_qualitative_sort.providers._failures import classify
from llm_qualitative_sort.providers._rate_signals import (
    RateFacts,
    facts_from_headers,
    parse_duration,
    quota_named,
)

REQUEST = httpx2.Request("POST", "https://api.openai.com/v1/chat/completions")
RATE_BODY = {"message": "Rate limit reached for gpt-5.1 on requests per min (RPM)",
             "type": "requests", "code": "rate_limit_exceeded"}
QUOTA_BODY = {"message": "You exceeded your current quota, please check your plan and "
                         "billing details.", "type": "insufficient_quota",
              "code": "insufficient_quota"}
HEADERS = {"retry-after-ms": "480", "retry-after": "1", "x-ratelimit-limit-requests": "120",
           "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2.5s",
           "x-ratelimit-limit-tokens": "40000", "x-ratelimit-remaining-tokens": "39000",
           "x-ratelimit-reset-tokens": "6m0s"}


def openai_429(body: dict[str, str], headers: dict[str, str]) -> openai.RateLimitError:
    response = httpx2.Response(429, headers=headers, json={"error": body}, request=REQUEST)
    return openai.RateLimitError(body["message"], response=response, body=body)


def gemini_429(quota_id: str, delay: str | None) -> GoogleRateLimitError:
    details: list[dict[str, object]] = [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
         "violations": [{"quotaId": quota_id, "quotaValue": "10"}]}]
    if delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                        "retryDelay": delay})
    body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": details,
                      "message": "You exceeded your current quota, please check your plan "
                                 "and billing details."}}
    cause = genai_errors.ClientError(429, body)
    try:
        raise GoogleRateLimitError(f"Error calling model 'gemini-3.0': {cause}") from cause
    except GoogleRateLimitError as wrapped:
        return wrapped


@pytest.mark.parametrize(("text", "seconds"), [
    ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("37s", 37.0),
    ("0.480s", 0.48), ("2", 2.0), ("", None), ("soon", None), ("5 s", None), ("1s2", None),
])
def test_durations_as_the_headers_write_them(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


@given(st.integers(0, 5), st.integers(0, 59), st.integers(0, 59), st.integers(0, 999))
def test_any_go_style_duration_reads_back(h: int, m: int, s: int, ms: int) -> None:
    text = f"{h}h{m}m{s}s" if ms == 0 else f"{h}h{m}m{s}.{ms:03d}s"
    assert parse_duration(text) == pytest.approx(h * 3600 + m * 60 + s + ms / 1000)


def test_headers_give_the_limits_and_when_to_come_back() -> None:
    facts = facts_from_headers(httpx2.Headers(HEADERS))
    assert facts == RateFacts(retry_after=0.48, requests_limit=120, requests_remaining=0,
                              requests_reset=2.5, tokens_limit=40000, tokens_remaining=39000,
                              tokens_reset=360.0)
    assert not facts_from_headers(httpx2.Headers({})).said_anything()


@pytest.mark.parametrize("wrap", [False, True])
def test_openai_rate_limit_is_a_rate_with_its_headers(wrap: bool) -> None:
    exc: Exception = openai_429(RATE_BODY, HEADERS)
    if wrap:  # as langchain-openai raises it
        exc = OpenAIRateLimitError(message=exc.message, response=exc.response, body=exc.body)
    error = classify(exc, where="m", secret=None)
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == pytest.approx(0.48)
    assert isinstance(error.facts, RateFacts) and error.facts.requests_limit == 120


@pytest.mark.parametrize("wrap", [False, True])
def test_openai_insufficient_quota_is_a_quota(wrap: bool) -> None:
    exc: Exception = openai_429(QUOTA_BODY, {})
    if wrap:
        exc = OpenAIRateLimitError(message=exc.message, response=exc.response, body=exc.body)
    error = classify(exc, where="m", secret=None)
    assert isinstance(error, QuotaExceededError)
    assert error.quota == "insufficient_quota"
    assert "resume" in str(error) and "insufficient_quota" in str(error)


def test_gemini_per_minute_limit_is_a_rate_with_retry_info_and_the_limit() -> None:
    error = classify(gemini_429("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "37s"),
                     where="m", secret=None)
    assert isinstance(error, RateLimitedError)
    assert error.retry_after == 37.0
    assert isinstance(error.facts, RateFacts) and error.facts.requests_limit == 10


@pytest.mark.parametrize("delay", ["7s", None])
def test_gemini_per_day_quota_is_a_quota_even_with_retry_info(delay: str | None) -> None:
    error = classify(gemini_429("GenerateRequestsPerDayPerProjectPerModel-FreeTier", delay),
                     where="m", secret=None)
    assert isinstance(error, QuotaExceededError)
    assert "PerDay" in error.quota


def test_billing_wording_is_a_quota_only_without_a_time_to_come_back() -> None:
    text = "Your credit balance is too low: see billing"
    assert quota_named(429, None, None, text) == "billing"
    assert quota_named(429, None, None, text, timed=True) is None
    assert quota_named(429, {"code": "rate_limit_exceeded"}, None, "slow down") is None


@pytest.mark.parametrize(("headers", "field", "seconds"), [
    ({"retry-after": "nan"}, "retry_after", None),
    ({"retry-after-ms": "NaN"}, "retry_after", None),
    ({"retry-after": "inf"}, "retry_after", float("inf")),
    ({"x-ratelimit-limit-requests": "nan"}, "requests_limit", None),
    ({"x-ratelimit-reset-requests": "nan"}, "requests_reset", None),
    # The moment of the reset, as some gateways send it: long past, so nothing to wait.
    ({"x-ratelimit-reset-requests": "1700000000"}, "requests_reset", 0.0),
    ({"x-ratelimit-reset-tokens": "1e9"}, "tokens_reset", 0.0),
])
def test_nan_says_nothing_and_a_unix_time_reset_is_a_moment(
    headers: dict[str, str], field: str, seconds: float | None
) -> None:
    assert getattr(facts_from_headers(headers), field) == seconds


def test_a_reset_given_as_a_future_unix_time_is_the_time_left() -> None:
    import time

    facts = facts_from_headers({"x-ratelimit-reset-requests": str(int(time.time()) + 30)})
    assert facts.requests_reset is not None and 25 <= facts.requests_reset <= 31
