"""LLM providers: the interface and its requests, the real clients, panels and batches.

The real clients are imported on first use, so that importing this package never requires
langchain-openai or langchain-google-genai. The judges for tests and experiments (the mock,
the replay judge, `FunctionProvider`) live in `llm_qualitative_sort.testing`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.providers._batch import BatchOptions
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.panel import PanelProvider
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.google import GoogleProvider
    from llm_qualitative_sort.providers.langchain import LangChainProvider
    from llm_qualitative_sort.providers.openai import OpenAIProvider

_LAZY = {
    "GoogleProvider": "llm_qualitative_sort.providers.google",
    "LangChainProvider": "llm_qualitative_sort.providers.langchain",
    "OpenAIProvider": "llm_qualitative_sort.providers.openai",
}
# The judges for tests live in `llm_qualitative_sort.testing`; code that imports them from
# here still finds them, loaded only when asked for (not this package's own: not in `__all__`).
_MOVED = {
    name: "llm_qualitative_sort.testing"
    for name in ("MockLLMProvider", "ReplayProvider", "ReplayTopic", "load_replay_topic")
}

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
    home = _LAZY.get(name) or _MOVED.get(name)
    if home is not None:
        return getattr(import_module(home), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
