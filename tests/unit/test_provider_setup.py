from types import SimpleNamespace

import pytest
from langchain_core import exceptions as lc

from llm_qualitative_sort import (
    GoogleProvider,
    OpenAIProvider,
    PermanentProviderError,
    TransientProviderError,
)
from llm_qualitative_sort.providers._failures import classify, retry_after
from llm_qualitative_sort.providers.google import split_version

KEY = "sk-unit-SECRET-123"


@pytest.mark.parametrize(
    ("cls", "variable"), [(OpenAIProvider, "OPENAI_API_KEY"), (GoogleProvider, "GOOGLE_API_KEY")]
)
def test_missing_key_fails_at_construction(
    cls: type, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ValueError, match=variable):
        cls()
    monkeypatch.setenv(variable, KEY)
    assert cls()._api_key.get_secret_value() == KEY


def test_identity_tells_models_and_endpoints_apart_without_secrets() -> None:
    a = OpenAIProvider(api_key=KEY)
    b = OpenAIProvider(api_key=KEY, model="gpt-5-mini")
    c = OpenAIProvider(api_key=KEY, base_url="https://user:pw@proxy.example/v1?key=" + KEY)
    identities = {p.model_identity for p in (a, b, c)}
    assert len(identities) == 3
    assert c.model_identity == "OpenAIProvider:gpt-5.1@https://proxy.example/v1#prompt1"
    for provider in (a, b, c):
        assert KEY not in provider.model_identity
        assert KEY not in repr(provider)  # a key in the URL's query string stays out too


def test_gemini_base_url_carries_the_api_version() -> None:
    assert split_version("https://host/v1beta/") == ("https://host", "v1beta")
    assert split_version("https://host/v1") == ("https://host", "v1")
    assert split_version("https://host/proxy") == ("https://host/proxy", "v1beta")


def test_no_price_no_cost_and_prices_add_up() -> None:
    assert OpenAIProvider(api_key=KEY).estimate_cost(1000, 10) is None
    priced = OpenAIProvider(api_key=KEY, input_price_per_million=1.25, output_price_per_million=10)
    assert priced.estimate_cost(2_000_000, 100_000) == pytest.approx(3.5)


def _with_response(exc: Exception, headers: dict[str, str]) -> Exception:
    exc.response = SimpleNamespace(headers=headers)  # type: ignore[attr-defined]
    return exc


def test_retry_after_from_headers_and_gemini_retry_info() -> None:
    assert retry_after(_with_response(lc.ModelRateLimitError(), {"retry-after": "2"})) == 2.0
    ms = _with_response(lc.ModelRateLimitError(), {"retry-after-ms": "250"})
    assert retry_after(ms) == 0.25
    body = {"error": {"details": [{"@type": "RetryInfo", "retryDelay": "37s"}]}}
    cause = Exception("429")
    cause.details = body  # type: ignore[attr-defined]
    wrapped = lc.ModelRateLimitError("quota")
    wrapped.__cause__ = cause
    assert retry_after(wrapped) == 37.0


def test_classification_masks_the_key() -> None:
    error = classify(lc.ModelAuthenticationError(f"bad key {KEY}"), where="m", secret=KEY)
    assert isinstance(error, PermanentProviderError)
    assert KEY not in str(error) and "***" in str(error)
    assert isinstance(classify(TimeoutError(), where="m", secret=None), TransientProviderError)
    assert classify(KeyError("bug"), where="m", secret=None) is None


BAD_KNOBS = [
    ({"requests_per_second": -1}, ValueError, "requests_per_second must be greater than 0, got -1"),
    ({"requests_per_second": float("nan")}, ValueError, "requests_per_second must be a finite"),
    ({"rate_wait_limit": float("inf")}, ValueError, "rate_wait_limit must be a finite number"),
    ({"rate_wait_limit": 1e308}, ValueError, "rate_wait_limit must be less than or equal to"),
    ({"rate_wait_limit": "5"}, TypeError, "rate_wait_limit must be a valid number, got '5'"),
    ({"timeout": float("inf")}, ValueError, "timeout must be a finite number, got inf"),
    ({"timeout": float("nan")}, ValueError, "timeout must be a finite number, got nan"),
    ({"max_retries": -1}, ValueError, "max_retries must be greater than or equal to 0, got -1"),
    ({"adaptive_rate": "no"}, TypeError, "adaptive_rate must be a valid boolean, got 'no'"),
    ({"logprobs": "no"}, TypeError, "logprobs must be a valid boolean, got 'no'"),
    ({"reasks": 1.5}, TypeError, "reasks must be a valid integer, got 1.5"),
    ({"input_price_per_million": -2.0}, ValueError,
     "input_price_per_million must be a finite number >= 0, got -2.0"),
    ({"base_url": "ftp://x"}, ValueError, "base_url must be an http\\(s\\) URL, got 'ftp://x'"),
]


@pytest.mark.parametrize("cls", [OpenAIProvider, GoogleProvider])
@pytest.mark.parametrize(("knob", "error", "message"), BAD_KNOBS,
                         ids=[f"{next(iter(k))}={v!r}" for k, _, _ in BAD_KNOBS
                              for v in k.values()])
def test_a_bad_setting_is_refused_at_construction_naming_it(
    cls: type, knob: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^{cls.__name__}: {message}"):
        cls(api_key=KEY, **knob)


def test_good_settings_are_taken_as_given() -> None:
    judge = OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:9/v1", timeout=5,
                           requests_per_second=0.5, rate_wait_limit=0, max_retries=2,
                           adaptive_rate=False, logprobs=False)
    assert (judge.timeout, judge.rate_wait_limit, judge.adaptive_rate, judge.logprobs) == (
        5, 0.0, False, False)
    assert judge.base_url == "http://127.0.0.1:9/v1"
