"""`HostedProvider`: what the OpenAI and Gemini judges share.

The key (given, or from the provider's environment variable in the registry), the endpoint
(the default when none is given), the prices, the batch options and one batch client per
event loop. A subclass says how to build its chat model and its batch client.
"""

from __future__ import annotations

import importlib
import os
from abc import abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from pydantic import SecretStr

from llm_qualitative_sort.errors import InputError, install_hint
from llm_qualitative_sort.providers._batch import BatchOptions, PerLoop, batch_options
from llm_qualitative_sort.providers._knobs import check_knobs
from llm_qualitative_sort.providers.langchain import LangChainProvider, Method
from llm_qualitative_sort.providers.registry import REGISTRY, spec_for_extra

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from llm_qualitative_sort.providers._batch import BatchClient


class HostedProvider(LangChainProvider):
    """A judge on a provider's own API, with an API key and an optional batch mode.

    Args (every subclass takes them):
        api_key: The key; falls back to the registry's variable (`OPENAI_API_KEY`, ...).
        base_url: The endpoint; the provider's own (`DEFAULT_BASE_URL`) when None.
        model: Model name; the provider's `DEFAULT_MODEL` when None.
        timeout: Seconds one request may take.
        max_retries: Retries inside the SDK per engine attempt (0: the engine retries).
        requests_per_second: Client-side rate limit.
        reasks: How many more times to ask when an answer has no usable verdict.
        input_price_per_million: Price of a million input tokens, for `estimated_cost`.
        output_price_per_million: Price of a million output tokens.
        batch: True (or `BatchOptions`) to send each round's calls as one provider batch.
        logprobs: Ask for log-probabilities (live and batch), for the soft verdict
            `ComparisonResult.probability`; False never asks (every verdict is hard).
        adaptive_rate: Pace the calls by the server's 429s and rate-limit headers.
        rate_wait_limit: Seconds one call may wait, in total, for the rate limit (pauses
            and pace); a longer wait stops the run.
    """

    NAME: ClassVar[str]  # its entry in the provider registry
    DEFAULT_BASE_URL: ClassVar[str]
    DEFAULT_MODEL: ClassVar[str]
    METHODS: ClassVar[tuple[Method, ...]]

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        model: str | None = None,
        *,
        timeout: float = 120.0,
        max_retries: int = 0,
        requests_per_second: float | None = None,
        reasks: int = 1,
        input_price_per_million: float | None = None,
        output_price_per_million: float | None = None,
        batch: bool | BatchOptions = False,
        logprobs: bool = True,
        adaptive_rate: bool = True,
        rate_wait_limit: float = 600.0,
    ) -> None:
        # Before anything is built: a bad endpoint or retry count would show only at the
        # first call, after the engine's retries.
        check_knobs(type(self).__name__, base_url=base_url, timeout=timeout,
                    max_retries=max_retries)
        self.batch = batch_options(batch)
        self._batch_clients: PerLoop[BatchClient] = PerLoop(self._new_batch_client)
        url = self._endpoint(base_url)
        secret = self._key(api_key, url)
        name = self.DEFAULT_MODEL if model is None else model
        super().__init__(
            self._chat_factory(name, secret, url, timeout, max_retries),
            model=name,
            base_url=url,
            methods=self.METHODS,
            reasks=reasks,
            timeout=timeout,
            requests_per_second=requests_per_second,
            input_price_per_million=input_price_per_million,
            output_price_per_million=output_price_per_million,
            logprobs=logprobs,
            adaptive_rate=adaptive_rate,
            rate_wait_limit=rate_wait_limit,
        )
        self._api_key = secret

    def _endpoint(self, base_url: str | None) -> str:
        """The endpoint the requests go to."""
        return base_url or self.DEFAULT_BASE_URL

    def _key(self, api_key: str | None, url: str) -> SecretStr:
        """The key given or found in the registry's variable (`ValueError` without one)."""
        del url  # a hosted API always needs its key; see OpenAIProvider for other servers
        return self._required_key(api_key)

    def _required_key(self, api_key: str | None) -> SecretStr:
        spec = REGISTRY[self.NAME]
        assert spec.key_variable is not None and spec.extra is not None
        return required_key(api_key, spec.key_variable, spec.class_name, spec.extra)

    @abstractmethod
    def _chat_factory(self, model: str, secret: SecretStr, url: str, timeout: float,
                      max_retries: int) -> Callable[[], BaseChatModel]:
        """What builds the chat model, once per event loop."""

    @abstractmethod
    def _open_batch_client(self, options: BatchOptions, key: str, url: str,
                           timeout: float) -> BatchClient:
        """A new batch client of the provider's batch API at `url` (the live endpoint)."""

    def batch_client(self) -> BatchClient | None:
        """The provider's batch client when batch mode is on (one per event loop)."""
        if self.batch is None or self._api_key is None:
            return None
        client = self._batch_clients.get()
        # A refusal of log-probabilities, learned by either path, holds for both.
        self.logprobs = client.logprobs = self.logprobs and client.logprobs
        return client

    def _new_batch_client(self) -> BatchClient:
        assert self.batch is not None and self._api_key is not None
        assert self.base_url is not None and self.timeout is not None  # set by __init__
        client = self._open_batch_client(self.batch, self._api_key.get_secret_value(),
                                         self.base_url, self.timeout)
        client.reasks = self.reasks
        client.on_logprobs_refused = self._logprobs_refused
        return client

    def _logprobs_refused(self) -> None:
        """A batch learned that the model refuses log-probabilities: never ask again."""
        self.logprobs = False


def required_key(api_key: str | None, variable: str, provider: str, extra: str) -> SecretStr:
    """The key given or found in `variable`, once the client for `extra` is importable.

    Raises:
        ValueError: No key at all.
        ImportError: The extra's client is not installed (with the pip command to fix it).
    """
    key = api_key or os.environ.get(variable)
    if not key:
        raise InputError(f"{provider} needs an API key: pass api_key=... or set {variable}")
    module = spec_for_extra(extra).client
    assert module is not None  # an extra is there to install a client
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{provider} needs {module.replace("_", "-")}: {install_hint(extra)}'
        ) from exc
    return SecretStr(key)
