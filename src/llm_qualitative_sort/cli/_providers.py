"""Building the judge the command line names; real providers are imported lazily."""

from __future__ import annotations

import importlib
import json
from functools import cache
from importlib import resources
from typing import Any

from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.providers import LLMProvider, MockLLMProvider
from llm_qualitative_sort.providers.mock import default_score

# name -> (module, class, pip extra)
REAL_PROVIDERS = {
    "openai": ("llm_qualitative_sort.providers.openai", "OpenAIProvider", "openai"),
    "google": ("llm_qualitative_sort.providers.google", "GoogleProvider", "google"),
}
PROVIDERS = ("mock", *REAL_PROVIDERS)


class ProviderUnavailable(RuntimeError):
    """The chosen provider cannot be imported; the message says what to install."""


@cache
def demo_set() -> dict[str, Any]:
    """The bundled demo: its criterion and its texts with their hidden scores."""
    data = resources.files("llm_qualitative_sort").joinpath("data/demo.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(data)
    return loaded


def mock_score(text: str) -> float:
    """The mock judge's hidden value of a text.

    A bundled demo text has its hidden score; any other text is valued as the library's
    mock values it (`default_score`: an integer its value, anything else its length), so
    that `--provider mock` runs on any file as `MockLLMProvider()` would.
    """
    scores: dict[str, float] = demo_set()["texts"]
    hidden = scores.get(text)
    return default_score(text) if hidden is None else float(hidden)


def make_provider(config: RunConfig) -> LLMProvider:
    """The judge for `config`.

    Raises:
        ProviderUnavailable: The provider's module or its client library is not installed.
    """
    if config.provider == "mock":
        return MockLLMProvider(seed=config.seed, latency=config.mock_latency, score=mock_score)
    module_name, class_name, extra = REAL_PROVIDERS[config.provider]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ProviderUnavailable(
            f"the {config.provider} provider is not available ({exc}); "
            f'install it with: pip install "llm-qualitative-sort[{extra}]"'
        ) from exc
    provider_class = getattr(module, class_name)
    kwargs: dict[str, Any] = {"api_key": None, "base_url": config.base_url}
    if config.model:
        kwargs["model"] = config.model
    if config.batch:
        from llm_qualitative_sort.providers._batch import BatchOptions

        kwargs["batch"] = BatchOptions(poll_interval=config.batch_poll,
                                       max_poll_interval=max(600.0, config.batch_poll),
                                       discount=config.batch_discount, detach=config.detach)
    provider: LLMProvider = provider_class(**kwargs)
    return provider
