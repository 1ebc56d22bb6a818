"""`GoogleProvider`: Gemini through langchain-google-genai (`GeminiChat`, for log-probs)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_qualitative_sort.providers._hosted import HostedProvider

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from pydantic import SecretStr

    from llm_qualitative_sort.providers._batch import BatchClient, BatchOptions

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
DEFAULT_MODEL = "gemini-3.0"
_VERSION = re.compile(r"^(.*?)/(v\d+(?:alpha|beta)?\d*)/?$")


class GoogleProvider(HostedProvider):
    """A judge on the Gemini API (`{base_url}/models/<model>:generateContent`).

    Failed requests are retried by the engine (the sorter's `retry_policy`, 6 attempts by
    default, honouring Retry-After); the Gemini SDK makes `max_retries + 1` attempts per
    engine attempt, one by default. JSON mode is the same request as JSON schema on
    Gemini, so the fallback chain is json_schema, function calling, plain text.

    Each request asks for the tokens' log-probabilities (`responseLogprobs`, `logprobs`),
    from which the soft verdict `ComparisonResult.probability` is read. A model that
    refuses them (400 "Logprobs is not enabled for models/...") is asked again at once
    without, and this provider does not ask for them again.

    Args:
        api_key: The key; falls back to `GOOGLE_API_KEY`.
        base_url: The endpoint including the API version, as in the default
            `https://generativelanguage.googleapis.com/v1beta`; without a version, v1beta.
        model: Model name.
        timeout: Seconds one request may take.
        max_retries: Retries inside the Gemini SDK per engine attempt (0: the engine retries).
        requests_per_second: Client-side rate limit.
        reasks: How many more times to ask when an answer has no usable verdict.
        input_price_per_million: Price of a million input tokens, for `estimated_cost`.
        output_price_per_million: Price of a million output tokens.
        batch: True (or `BatchOptions`) to send each round's calls as one Gemini batch, at
            the batch price, instead of live calls (see the batch mode guide).
        logprobs: Ask for the tokens' log-probabilities (live and batch), from which the
            soft verdict `ComparisonResult.probability` is read; False never asks.
        adaptive_rate: Pace the calls by the server's 429s and rate-limit headers (on by
            default; see the providers guide). `requests_per_second` stays a hard cap.
        rate_wait_limit: Seconds one call may wait, in total, for the rate limit (pauses
            and pace); a longer wait stops the run (10 minutes by default).

    Raises:
        ValueError: No key given and `GOOGLE_API_KEY` unset.
        ValueError, TypeError: A setting out of its range (negative, NaN, infinite, a
            `base_url` that is not http(s)) or of the wrong type, named in the message.
        ImportError: langchain-google-genai missing
            (`pip install -e ".[google]"` in this project's folder).

    Example:
        >>> judge = GoogleProvider(api_key="test-key", model="gemini-3.0")
        >>> judge.model_identity
        'GoogleProvider:gemini-3.0@https://generativelanguage.googleapis.com/v1beta#prompt1'
    """

    NAME = "google"
    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    DEFAULT_MODEL = DEFAULT_MODEL
    # JSON mode is the same request as JSON schema on Gemini: not tried twice.
    METHODS = ("json_schema", "function_calling", "text")

    def _endpoint(self, base_url: str | None) -> str:
        return (base_url or DEFAULT_BASE_URL).rstrip("/")

    def _chat_factory(self, model: str, secret: SecretStr, url: str, timeout: float,
                      max_retries: int) -> Callable[[], BaseChatModel]:
        root, version = split_version(url)

        def build() -> BaseChatModel:
            from llm_qualitative_sort.providers._gemini_chat import GeminiChat

            # One model (and SDK client) per event loop: the SDK's async transport is
            # bound to the loop it first ran on.
            return GeminiChat(
                model=model,
                google_api_key=secret,
                base_url=root,
                api_version=version,
                timeout=timeout,
                max_retries=max_retries + 1,  # the SDK counts attempts, not retries
            )

        return build

    def _open_batch_client(self, options: BatchOptions, key: str, url: str,
                           timeout: float) -> BatchClient:
        from llm_qualitative_sort.providers._batch_google import GeminiBatchClient

        root, version = split_version(url)
        return GeminiBatchClient(options, self.model, key, root, version, timeout)


def split_version(url: str) -> tuple[str, str]:
    """Split `https://host/v1beta` into the SDK's base URL and API version.

    Example:
        >>> split_version("https://generativelanguage.googleapis.com/v1beta")
        ('https://generativelanguage.googleapis.com', 'v1beta')
        >>> split_version("http://127.0.0.1:8080")
        ('http://127.0.0.1:8080', 'v1beta')
    """
    match = _VERSION.match(url)
    return (match.group(1), match.group(2)) if match else (url, "v1beta")
