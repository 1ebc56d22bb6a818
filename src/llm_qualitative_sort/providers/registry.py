"""The provider registry: every judge a name can choose, and how to build it.

One table serves the command line (`--provider`, `--judge`, `--batch`), LangGraph Studio
(the run context's `provider` and `judges`), the hosted providers' key lookup and the
reports' provider names. A new provider is one more `ProviderSpec`.

It holds names and strings only, so that `llm-qualitative-sort --help` can read it without
loading pydantic or langchain-core (the `providers` package loads its names on first use; the
provider classes are imported by `build_provider`, when one is chosen).

Example:
    >>> build_provider("mock", seed=3).model_identity
    'MockLLMProvider:seed=3:sd=3.33:bias=0.0:score=False'
    >>> REGISTRY["openai"].key_variable, BATCH_PROVIDERS
    ('OPENAI_API_KEY', ('openai', 'google'))
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from llm_qualitative_sort.errors import InputError, SettingTypeError

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.base import LLMProvider

# The providers a name alone builds (keys from the environment): what Studio's context and
# `--judge PROVIDER[:MODEL]` may name. A Literal, so Studio's JSON schema lists them.
ProviderName = Literal["mock", "openai", "google"]
NAMED_PROVIDERS: tuple[str, ...] = get_args(ProviderName)


@dataclass(frozen=True)
class ProviderSpec:
    """How to build one provider from settings.

    Attributes:
        name: What `--provider` and Studio's `provider` say.
        module: The module of the provider class, imported only when it is built.
        class_name: The provider class (reports name a judge by it).
        client: The client library it needs (an import name), checked before building.
        extra: The pip extra that installs `client`.
        key_variable: The environment variable its API key comes from.
        batch: Whether it has a provider batch API (`--batch`, `batch=True`).
    """

    name: str
    module: str
    class_name: str
    client: str | None = None
    extra: str | None = None
    key_variable: str | None = None
    batch: bool = False


_PROVIDERS = "llm_qualitative_sort.providers."
REGISTRY: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec("mock", _PROVIDERS + "mock", "MockLLMProvider"),
        ProviderSpec("openai", _PROVIDERS + "openai", "OpenAIProvider", "langchain_openai",
                     "openai", "OPENAI_API_KEY", batch=True),
        ProviderSpec("google", _PROVIDERS + "google", "GoogleProvider", "langchain_google_genai",
                     "google", "GOOGLE_API_KEY", batch=True),
        # Built from a chat model class (`--chat-model`), never from its name alone.
        ProviderSpec("langchain", _PROVIDERS + "langchain", "LangChainProvider",
                     "langchain_core"),
    )
}
PROVIDER_NAMES: tuple[str, ...] = tuple(REGISTRY)
BATCH_PROVIDERS: tuple[str, ...] = tuple(name for name, s in REGISTRY.items() if s.batch)


def spec_for_extra(extra: str) -> ProviderSpec:
    """The provider that the pip extra `extra` installs the client of."""
    return next(spec for spec in REGISTRY.values() if spec.extra == extra)


def provider_class(name: str) -> type[Any]:
    """The class of provider `name`, imported now.

    Imported here, not at the top: the real providers need their optional extras, and the
    command line's parsing must stay free of them.
    """
    spec = REGISTRY[name]
    found: type[Any] = getattr(importlib.import_module(spec.module), spec.class_name)
    return found


def build_provider(name: str, *, model: str | None = None, seed: int | None = None,
                   **options: Any) -> LLMProvider:
    """The provider `name` (one of `NAMED_PROVIDERS`), built with `options`.

    The mock takes the seed (and ignores the model); the others take the model (their own
    default when None or empty) and find their key in the environment unless `options`
    gives `api_key`.

    Raises:
        ValueError: An unknown name, or a setting the provider refuses (a missing key).
        ImportError: The provider's client library is not installed.
    """
    if name not in NAMED_PROVIDERS:
        expected = ", ".join(map(repr, NAMED_PROVIDERS))
        raise InputError(f"unknown provider {name!r}; expected one of {expected}")
    # Imported when a provider is built (not at the top): see the module's docstring.
    from llm_qualitative_sort.providers.base import LLMProvider

    kwargs = dict(options)
    if name == "mock":
        kwargs["seed"] = seed
    elif model:
        kwargs["model"] = model
    provider = provider_class(name)(**kwargs)
    if not isinstance(provider, LLMProvider):
        spec = REGISTRY[name]
        raise SettingTypeError(f"{spec.module}.{spec.class_name} is not an LLMProvider")
    return provider
