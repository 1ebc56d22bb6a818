"""`OpenAIProvider`: OpenAI (or any OpenAI-compatible endpoint) through langchain-openai."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import SecretStr

from llm_qualitative_sort.providers._batch import BatchOptions, PerLoop, batch_options
from llm_qualitative_sort.providers.langchain import ALL_METHODS, LangChainProvider, required_key

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from llm_qualitative_sort.providers._batch import BatchClient

DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"
DEFAULT_MODEL = "gpt-5.1"


# What the OpenAI client sends to a server that takes no key (it insists on one).
NO_KEY = "sk-no-key-for-this-server"


def _key(api_key: str | None, url: str) -> SecretStr:
    """The key: required for OpenAI itself, optional for another server (a local model)."""
    if api_key or os.environ.get("OPENAI_API_KEY") or urlsplit(url).hostname == OPENAI_HOST:
        return required_key(api_key, "OPENAI_API_KEY", "OpenAIProvider", "openai")
    return required_key(NO_KEY, "OPENAI_API_KEY", "OpenAIProvider", "openai")


class OpenAIProvider(LangChainProvider):
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

    Raises:
        ValueError: No key given and `OPENAI_API_KEY` unset, for OpenAI itself or batch mode.
        ImportError: langchain-openai missing
            (`pip install -e ".[openai]"` in this project's folder).

    Example:
        >>> judge = OpenAIProvider(api_key="sk-test", model="gpt-5.1")
        >>> judge.model_identity
        'OpenAIProvider:gpt-5.1@https://api.openai.com/v1#prompt1'
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        model: str = DEFAULT_MODEL,
        *,
        timeout: float = 120.0,
        max_retries: int = 0,
        requests_per_second: float | None = None,
        reasks: int = 1,
        input_price_per_million: float | None = None,
        output_price_per_million: float | None = None,
        batch: bool | BatchOptions = False,
    ) -> None:
        self.batch = batch_options(batch)
        self._batch_clients: PerLoop[BatchClient] = PerLoop(self._new_batch_client)
        url = base_url or DEFAULT_BASE_URL
        secret = _key(api_key, url)
        if self.batch is not None and secret.get_secret_value() == NO_KEY:
            raise ValueError("batch mode needs OpenAI's Batch API and its key: pass api_key=... "
                             "or set OPENAI_API_KEY")

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
            )

        super().__init__(
            build,
            model=model,
            base_url=url,
            methods=ALL_METHODS,
            reasks=reasks,
            timeout=timeout,
            requests_per_second=requests_per_second,
            input_price_per_million=input_price_per_million,
            output_price_per_million=output_price_per_million,
        )
        self._api_key = secret

    def batch_client(self) -> BatchClient | None:
        """An OpenAI Batch API client when batch mode is on (one per event loop)."""
        if self.batch is None or self._api_key is None:
            return None
        return self._batch_clients.get()

    def _new_batch_client(self) -> BatchClient:
        from llm_qualitative_sort.providers._batch_openai import OpenAIBatchClient

        assert self.batch is not None and self._api_key is not None
        assert self.base_url is not None and self.timeout is not None
        client = OpenAIBatchClient(
            self.batch, self.model, self._api_key.get_secret_value(), self.base_url, self.timeout
        )
        client.reasks = self.reasks
        return client
