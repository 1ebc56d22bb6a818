"""Rank texts by a qualitative criterion with an LLM judge in a multi-elimination tournament.

Example:
    >>> import asyncio
    >>> from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
    >>> sorter = QualitativeSorter(MockLLMProvider(seed=0), criteria="larger number",
    ...                            seed=0, checkpointer=None)
    >>> asyncio.run(sorter.sort(["1", "50", "99"])).rankings[0]
    (1, ['99'])
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort._storage import default_checkpoint_path
from llm_qualitative_sort.cache import (
    CacheError,
    CacheKey,
    ComparisonCache,
    FileCache,
    MemoryCache,
)
from llm_qualitative_sort.errors import (
    PermanentProviderError,
    ProviderError,
    RunDetached,
    RunMismatchError,
    RunStoppedError,
    TransientProviderError,
)
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.models import (
    ComparisonResult,
    EventType,
    InvalidAnswerError,
    MatchResult,
    ProgressEvent,
    RoundResult,
    SortResult,
    Statistics,
)
from llm_qualitative_sort.providers import BatchOptions, LLMProvider, MockLLMProvider
from llm_qualitative_sort.sorter import QualitativeSorter

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.google import GoogleProvider
    from llm_qualitative_sort.providers.langchain import LangChainProvider
    from llm_qualitative_sort.providers.openai import OpenAIProvider

__all__ = [
    "BatchOptions",
    "CacheError",
    "CacheKey",
    "ComparisonCache",
    "ComparisonResult",
    "EventType",
    "FileCache",
    "GoogleProvider",
    "InvalidAnswerError",
    "LLMProvider",
    "LangChainProvider",
    "MatchResult",
    "MemoryCache",
    "MockLLMProvider",
    "OpenAIProvider",
    "PermanentProviderError",
    "ProgressEvent",
    "ProviderError",
    "QualitativeSorter",
    "RoundResult",
    "RunDetached",
    "RunMismatchError",
    "RunStoppedError",
    "SortResult",
    "Statistics",
    "TransientProviderError",
    "build_graph",
    "default_checkpoint_path",
]

# The real providers load on first use: importing the package must not need their extras.
_LAZY = ("GoogleProvider", "LangChainProvider", "OpenAIProvider")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module("llm_qualitative_sort.providers"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
