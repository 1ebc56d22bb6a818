"""LLM providers: the interface and its requests, the mock and replay judges, the clients.

The real clients are imported on first use, so that importing this package never requires
langchain-openai or langchain-google-genai.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.providers._batch import BatchOptions
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.mock import MockLLMProvider
from llm_qualitative_sort.providers.panel import PanelProvider
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score
from llm_qualitative_sort.providers.replay import ReplayProvider, ReplayTopic, load_replay_topic

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.google import GoogleProvider
    from llm_qualitative_sort.providers.langchain import LangChainProvider
    from llm_qualitative_sort.providers.openai import OpenAIProvider

_LAZY = {
    "GoogleProvider": "llm_qualitative_sort.providers.google",
    "LangChainProvider": "llm_qualitative_sort.providers.langchain",
    "OpenAIProvider": "llm_qualitative_sort.providers.openai",
}

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
