"""`OpenAIProvider`: OpenAI (or any OpenAI-compatible endpoint) through langchain-openai."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import SecretStr

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers._hosted import HostedProvider
from llm_qualitative_sort.providers.langchain import ALL_METHODS

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from llm_qualitative_sort.providers._batch import BatchClient, BatchOptions

DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"
DEFAULT_MODEL = "gpt-5.1"


# What the OpenAI client sends to a server that takes no key (it insists on one).
NO_KEY = "sk-no-key-for-this-server"


class OpenAIProvider(HostedProvider):
    """A judge on the OpenAI chat-completions API (or a compatible server or proxy).

    Requests go to `{base_url}/chat/completions`. Failed requests are retried by the engine
    (the sorter's `retry_policy`, 6 attempts by default, honouring Retry-After); the SDK's
    own retries are off by default, so the effective number of attempts of one call is
    `retry_policy.max_attempts * (max_retries + 1)`.

    A compatible server (llama.cpp, vLLM, Ollama, LM Studio) often refuses OpenAI's
    `json_schema` structured output, with a 400, a 422 or even a 500 naming the field: the
    provider then asks again at once with the next method (function calling, JSON mode, then
    a strict parse of plain text), keeps the one that worked for its later calls, and notes
    the refusal in that answer's `raw_response["rejected"]`. A refusal is never retried as
    a transient failure.

    Args:
        api_key: The key; falls back to `OPENAI_API_KEY`. Optional for a `base_url` other
            than OpenAI's (local servers take none).
        base_url: The endpoint, `https://api.openai.com/v1` by default.
        model: Model name.
        timeout: Seconds one request may take.
        max_retries: Retries inside the OpenAI SDK per engine attempt (0: the engine retries).
        requests_per_second: Client-side rate limit.
        reasks: How many more times to ask when an answer has no usable verdict.
        input_price_per_million: Price of a million input tokens, for `estimated_cost`.
        output_price_per_million: Price of a million output tokens.
        batch: True (or `BatchOptions`) to send each round's calls as one OpenAI Batch API
            batch, at the batch price, instead of live calls (see the batch mode guide).
        logprobs: Ask for the tokens' log-probabilities (live and batch), from which the
            soft verdict `ComparisonResult.probability` is read; False never asks.
        adaptive_rate: Pace the calls by the server's 429s and rate-limit headers (on by
            default; see the providers guide). `requests_per_second` stays a hard cap.
        rate_wait_limit: Seconds one call may wait, in total, for the rate limit (pauses
            and pace); a longer wait stops the run (10 minutes by default).

    Raises:
        ValueError: No key given and `OPENAI_API_KEY` unset, for OpenAI itself or batch mode.
        ValueError, TypeError: A setting out of its range (negative, NaN, infinite, a
            `base_url` that is not http(s)) or of the wrong type, named in the message.
        ImportError: langchain-openai missing
            (`pip install -e ".[openai]"` in this project's folder).

    Example:
        >>> judge = OpenAIProvider(api_key="sk-test", model="gpt-5.1")
        >>> judge.model_identity
        'OpenAIProvider:gpt-5.1@https://api.openai.com/v1#prompt1'
    """

    NAME = "openai"
    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    DEFAULT_MODEL = DEFAULT_MODEL
    METHODS = ALL_METHODS

    def _key(self, api_key: str | None, url: str) -> SecretStr:
        """Required for OpenAI itself and for batch mode, optional for another server."""
        if api_key or os.environ.get("OPENAI_API_KEY") or urlsplit(url).hostname == OPENAI_HOST:
            return self._required_key(api_key)
        # A local model takes no key, but the OpenAI client insists on one.
        secret = self._required_key(NO_KEY)
        if self.batch is not None:
            raise InputError("batch mode needs OpenAI's Batch API and its key: pass "
                             "api_key=... or set OPENAI_API_KEY")
        return secret

    def _chat_factory(self, model: str, secret: SecretStr, url: str, timeout: float,
                      max_retries: int) -> Callable[[], BaseChatModel]:
        def build() -> BaseChatModel:
            import httpx
            from langchain_openai import ChatOpenAI

            # A fresh HTTP client per event loop: langchain-openai otherwise shares one
            # default client per base URL, bound to the first loop that used it.
            return ChatOpenAI(
                model=model,
                api_key=secret,
                base_url=url,
                timeout=timeout,
                max_retries=max_retries,
                http_async_client=httpx.AsyncClient(timeout=timeout),
                # The rate-limit headers of each answer pace the judge before a 429.
                include_response_headers=True,
            )

        return build

    def _open_batch_client(self, options: BatchOptions, key: str, url: str,
                           timeout: float) -> BatchClient:
        from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient

        return OpenAIBatchClient(options, self.model, key, url, timeout)
