"""LLM providers: the interface and its requests, the mock and replay judges, the clients.

Every name loads on first use: the command line reads the provider registry (`registry`,
names and strings only) to parse `--provider` and `--judge`, and `--help` must not load
pydantic or langchain-core; the real clients must not need langchain-openai or
langchain-google-genai until they are chosen.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llm_qualitative_sort.providers._batch import BatchOptions
    from llm_qualitative_sort.providers.base import LLMProvider
    from llm_qualitative_sort.providers.google import GoogleProvider
    from llm_qualitative_sort.providers.langchain import LangChainProvider
    from llm_qualitative_sort.providers.mock import MockLLMProvider
    from llm_qualitative_sort.providers.openai import OpenAIProvider
    from llm_qualitative_sort.providers.panel import PanelProvider
    from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score
    from llm_qualitative_sort.providers.replay import (
        ReplayProvider,
        ReplayTopic,
        load_replay_topic,
    )

_HOMES = {
    "llm_qualitative_sort.providers._batch": ("BatchOptions",),
    "llm_qualitative_sort.providers.base": ("LLMProvider",),
    "llm_qualitative_sort.providers.google": ("GoogleProvider",),
    "llm_qualitative_sort.providers.langchain": ("LangChainProvider",),
    "llm_qualitative_sort.providers.mock": ("MockLLMProvider",),
    "llm_qualitative_sort.providers.openai": ("OpenAIProvider",),
    "llm_qualitative_sort.providers.panel": ("PanelProvider",),
    "llm_qualitative_sort.providers.questions": ("Compare", "Question", "Rank", "Request", "Score"),
    "llm_qualitative_sort.providers.replay": ("ReplayProvider", "ReplayTopic", "load_replay_topic"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "BatchOptions",
    "Compare",
    "GoogleProvider",
    "LLMProvider",
    "LangChainProvider",
    "MockLLMProvider",
    "OpenAIProvider",
    "PanelProvider",
    "Question",
    "Rank",
    "ReplayProvider",
    "ReplayTopic",
    "Request",
    "Score",
    "load_replay_topic",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
