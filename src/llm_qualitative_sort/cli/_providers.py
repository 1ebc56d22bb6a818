"""Building the judge the command line names; real providers are imported lazily."""

from __future__ import annotations

import importlib
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._parser import PANEL_PROVIDERS
from llm_qualitative_sort.errors import Error, InputError, install_hint
from llm_qualitative_sort.providers import LLMProvider
from llm_qualitative_sort.providers.mock import default_score
from llm_qualitative_sort.providers.panel import PanelProvider, parse_judge
from llm_qualitative_sort.providers.registry import REGISTRY, build_provider

# Credentials come from the environment: an argument named like one would end up in the
# shell history, the process list and the run's stored settings.
_SECRET_NAME = re.compile(r"(^|_)(api_?key|key|secret|password|token|credentials?)$", re.I)


class ProviderUnavailable(Error, RuntimeError):
    """The chosen provider cannot be imported or built; the message says what to do."""


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
    """The judge for `config`, built (and its key found) before any call.

    Raises:
        ProviderUnavailable: The provider's client library is not installed, or a LangChain
            chat model cannot be imported or built.
        ValueError: A setting the provider refuses, such as a missing API key.
    """
    if config.judges:
        return _panel(config)
    if config.provider == "mock":
        return build_provider("mock", seed=config.seed, latency=config.mock_latency,
                              score=mock_score, tie_margin=config.mock_tie_margin,
                              logprobs=config.mock_logprobs, pointwise=config.mock_logprobs)
    if config.provider == "langchain":
        return _langchain_provider(config)
    spec = REGISTRY[config.provider]
    assert spec.client is not None and spec.extra is not None  # a hosted provider
    _require(spec.client, install_hint(spec.extra),
             f"the {config.provider} provider needs {spec.client.replace('_', '-')}")
    kwargs: dict[str, Any] = {"api_key": None, "base_url": config.base_url, **_call_options(config)}
    if config.batch:
        from llm_qualitative_sort.providers._batch import BatchOptions

        kwargs["batch"] = BatchOptions(poll_interval=config.batch_poll,
                                       max_poll_interval=max(600.0, config.batch_poll),
                                       discount=config.batch_discount, detach=config.detach)
    try:
        return build_provider(config.provider, model=config.model, **kwargs)
    except ImportError as exc:
        raise ProviderUnavailable(str(exc)) from exc


def _panel(config: RunConfig) -> LLMProvider:
    """A panel of the `--judge`s; mock judges are seeded apart (seed, seed + 1, ...)."""
    if config.provider != "mock" or config.model or config.chat_model:
        raise InputError("--judge names every judge of a panel: drop --provider, --model and "
                         "--chat-model (or drop --judge for a single judge)")
    members = []
    seed = config.seed or 0
    for index, spec in enumerate(config.judges):
        name, model = parse_judge(spec, PANEL_PROVIDERS)
        one = config.model_copy(update={"provider": name, "model": model, "judges": [],
                                        "seed": seed + index})
        members.append(make_provider(one))
    return PanelProvider(members, seed=seed)


def _call_options(config: RunConfig) -> dict[str, Any]:
    options: dict[str, Any] = {
        "requests_per_second": config.requests_per_second,
        "input_price_per_million": config.input_price_per_million,
        "output_price_per_million": config.output_price_per_million,
    }
    if config.timeout is not None:
        options["timeout"] = config.timeout
    if config.rate_wait_limit is not None:
        options["rate_wait_limit"] = config.rate_wait_limit
    return options


def _require(module: str, fix: str, needs: str) -> None:
    """Raise `ProviderUnavailable` saying `needs` and `fix` when `module` cannot be imported."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ProviderUnavailable(
            f"{needs}, which is not installed ({exc}); install it with: {fix}") from exc


def chat_model_class(path: str) -> type[Any]:
    """The class named by "package.module:Class" (or "package.module.Class").

    Raises:
        ProviderUnavailable: It cannot be imported, or is not a LangChain chat model.
    """
    module_name, _, name = path.partition(":") if ":" in path else path.rpartition(".")
    if not module_name or not name:
        raise ProviderUnavailable(f"--chat-model {path!r}: expected MODULE:CLASS, "
                                  "such as langchain_openai:AzureChatOpenAI")
    top = module_name.split(".")[0]
    _require(module_name, f"pip install {top.replace('_', '-')}",
             f"--chat-model {path!r} needs the module {module_name}")
    found = getattr(importlib.import_module(module_name), name, None)
    from langchain_core.language_models import BaseChatModel

    if found is None:
        raise ProviderUnavailable(f"--chat-model {path!r}: {module_name} has no {name!r}")
    if not (isinstance(found, type) and issubclass(found, BaseChatModel)):
        raise ProviderUnavailable(f"--chat-model {path!r} is not a LangChain chat model class")
    return found


def _langchain_provider(config: RunConfig) -> LLMProvider:
    from llm_qualitative_sort.providers.langchain import LangChainProvider

    if not config.chat_model:
        raise ProviderUnavailable("--provider langchain needs --chat-model MODULE:CLASS")
    chat_class = chat_model_class(config.chat_model)
    kwargs = chat_model_kwargs(config, chat_class)
    try:
        # Built once now, so that a bad argument or a missing key is reported before any
        # call; the command line runs in one event loop, so one instance serves the run.
        chat = chat_class(**kwargs)
    except Exception as exc:
        raise ProviderUnavailable(f"cannot build {config.chat_model} with {sorted(kwargs)}: "
                                  f"{' '.join(str(exc).split())}") from exc
    return LangChainProvider(chat, model=config.model, **_call_options(config))


def chat_model_kwargs(config: RunConfig, chat_class: type[Any]) -> dict[str, Any]:
    """The keyword arguments for the chat model; credentials are refused."""
    kwargs = dict(config.chat_model_args)
    for name in kwargs:
        if _SECRET_NAME.search(name):
            raise ProviderUnavailable(
                f"--chat-model-arg {name}=...: pass credentials through the environment "
                "(the chat model reads its usual variable), never on the command line")
    if config.model and "model" not in kwargs:
        kwargs["model"] = config.model
    if config.base_url and "base_url" not in kwargs:
        kwargs["base_url"] = config.base_url
    # The sorter retries; the client's own retries would multiply the attempts.
    if "max_retries" in getattr(chat_class, "model_fields", {}):
        kwargs.setdefault("max_retries", 0)
    return kwargs
