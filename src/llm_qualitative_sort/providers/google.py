"""`GoogleProvider`: Gemini through langchain-google-genai."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llm_qualitative_sort.providers._batch import BatchOptions, PerLoop, batch_options
from llm_qualitative_sort.providers.langchain import LangChainProvider, required_key

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from llm_qualitative_sort.providers._batch import BatchClient

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
DEFAULT_MODEL = "gemini-3.0"
_VERSION = re.compile(r"^(.*?)/(v\d+(?:alpha|beta)?\d*)/?$")


class GoogleProvider(LangChainProvider):
    """A judge on the Gemini API (`{base_url}/models/<model>:generateContent`).

    Failed requests are retried by the engine (the sorter's `retry_policy`, 6 attempts by
    default, honouring Retry-After); the Gemini SDK makes `max_retries + 1` attempts per
    engine attempt, one by default. JSON mode is the same request as JSON schema on
    Gemini, so the fallback chain is json_schema, function calling, plain text.

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

    Raises:
        ValueError: No key given and `GOOGLE_API_KEY` unset.
        ImportError: langchain-google-genai missing
            (`pip install -e ".[google]"` in this project's folder).

    Example:
        >>> judge = GoogleProvider(api_key="test-key", model="gemini-3.0")
        >>> judge.model_identity
        'GoogleProvider:gemini-3.0@https://generativelanguage.googleapis.com/v1beta#prompt1'
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
        secret = required_key(api_key, "GOOGLE_API_KEY", "GoogleProvider", "google")
        url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        root, version = split_version(url)

        def build() -> BaseChatModel:
            from langchain_google_genai import ChatGoogleGenerativeAI

            # One model (and SDK client) per event loop: the SDK's async transport is
            # bound to the loop it first ran on.
            return ChatGoogleGenerativeAI(
                model=model,
                google_api_key=secret,
                base_url=root,
                api_version=version,
                timeout=timeout,
                max_retries=max_retries + 1,  # the SDK counts attempts, not retries
            )

        super().__init__(
            build,
            model=model,
            base_url=url,
            methods=("json_schema", "function_calling", "text"),
            reasks=reasks,
            timeout=timeout,
            requests_per_second=requests_per_second,
            input_price_per_million=input_price_per_million,
            output_price_per_million=output_price_per_million,
        )
        self._api_key = secret

    def batch_client(self) -> BatchClient | None:
        """A Gemini batch-mode client when batch mode is on (one per event loop)."""
        if self.batch is None or self._api_key is None:
            return None
        return self._batch_clients.get()

    def _new_batch_client(self) -> BatchClient:
        from llm_qualitative_sort.providers._batch_google import GeminiBatchClient

        assert self.batch is not None and self._api_key is not None
        assert self.base_url is not None and self.timeout is not None
        root, version = split_version(self.base_url)
        client = GeminiBatchClient(
            self.batch, self.model, self._api_key.get_secret_value(), root, version, self.timeout
        )
        client.reasks = self.reasks
        return client


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
