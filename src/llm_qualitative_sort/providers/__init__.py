"""LLM providers: the interface and its requests, the real clients, panels and batches.

Every name loads on first use: the command line reads the provider registry (`registry`,
names and strings only) to parse `--provider` and `--judge`, and `--help` must not load
pydantic or langchain-core; the real clients must not need langchain-openai or
langchain-google-genai until they are chosen. The judges for tests and experiments (the
mock, the replay judge, `FunctionProvider`) live in `llm_qualitative_sort.testing`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llm_qualitative_sort.providers._batch import BatchOptions
    from llm_qualitative_sort.providers.base import LLMProvider
    from llm_qualitative_sort.providers.google import GoogleProvider
    from llm_qualitative_sort.providers.langchain import LangChainProvider
    from llm_qualitative_sort.providers.openai import OpenAIProvider
    from llm_qualitative_sort.providers.panel import PanelProvider
    from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score

_HOMES = {
    "llm_qualitative_sort.providers._batch": ("BatchOptions",),
    "llm_qualitative_sort.providers.base": ("LLMProvider",),
    "llm_qualitative_sort.providers.google": ("GoogleProvider",),
    "llm_qualitative_sort.providers.langchain": ("LangChainProvider",),
    "llm_qualitative_sort.providers.openai": ("OpenAIProvider",),
    "llm_qualitative_sort.providers.panel": ("PanelProvider",),
    "llm_qualitative_sort.providers.questions": ("Compare", "Question", "Rank", "Request", "Score"),
    # The judges for tests moved to `llm_qualitative_sort.testing`; code that imports them
    # from here still finds them (not this package's own: not in `__all__`).
    "llm_qualitative_sort.testing": ("MockLLMProvider", "ReplayProvider", "ReplayTopic",
                                     "load_replay_topic"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "BatchOptions",
    "Compare",
    "GoogleProvider",
    "LLMProvider",
    "LangChainProvider",
    "OpenAIProvider",
    "PanelProvider",
    "Question",
    "Rank",
    "Request",
    "Score",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
