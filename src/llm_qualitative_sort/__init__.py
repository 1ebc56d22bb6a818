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

if TYPE_CHECKING:
    from llm_qualitative_sort.errors import (
        Error,
        InputError,
        PermanentProviderError,
        ProviderError,
        QuotaExceededError,
        RateLimitedError,
        RunDetached,
        RunLockedError,
        RunMismatchError,
        RunStoppedError,
        SettingTypeError,
        StorageError,
        TransientProviderError,
        UnknownRunError,
    )
    from llm_qualitative_sort.graph import build_graph
    from llm_qualitative_sort.judge_choice import JudgeChoice, calibrate
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
    from llm_qualitative_sort.prompts import PromptTemplate, PromptTemplateError
    from llm_qualitative_sort.providers import (
        BatchOptions,
        GoogleProvider,
        LangChainProvider,
        LLMProvider,
        MockLLMProvider,
        OpenAIProvider,
        PanelProvider,
    )
    from llm_qualitative_sort.rating.scale import Scale
    from llm_qualitative_sort.rating.scoring import ItemScore, PointwiseResult, ScoredCall
    from llm_qualitative_sort.sorter import QualitativeSorter
    from llm_qualitative_sort.stores.cache import (
        CacheError,
        CacheKey,
        ComparisonCache,
        FileCache,
        MemoryCache,
    )
    from llm_qualitative_sort.stores.default import default_checkpoint_path
    from llm_qualitative_sort.stores.postgres_cache import PostgresCache
    from llm_qualitative_sort.tournament.elimination.settings import Elimination
    from llm_qualitative_sort.tournament.pointwise.settings import Pointwise
    from llm_qualitative_sort.tournament.swiss.settings import Swiss

__all__ = [
    "BatchOptions",
    "CacheError",
    "CacheKey",
    "ComparisonCache",
    "ComparisonResult",
    "Elimination",
    "Error",
    "EventType",
    "FileCache",
    "GoogleProvider",
    "InputError",
    "InvalidAnswerError",
    "ItemScore",
    "JudgeChoice",
    "LLMProvider",
    "LangChainProvider",
    "MatchResult",
    "MemoryCache",
    "MockLLMProvider",
    "OpenAIProvider",
    "PanelProvider",
    "PermanentProviderError",
    "Pointwise",
    "PointwiseResult",
    "PostgresCache",
    "ProgressEvent",
    "PromptTemplate",
    "PromptTemplateError",
    "ProviderError",
    "QualitativeSorter",
    "QuotaExceededError",
    "RateLimitedError",
    "RoundResult",
    "RunDetached",
    "RunLockedError",
    "RunMismatchError",
    "RunStoppedError",
    "Scale",
    "ScoredCall",
    "SettingTypeError",
    "SortResult",
    "Statistics",
    "StorageError",
    "Swiss",
    "TransientProviderError",
    "UnknownRunError",
    "__version__",
    "build_graph",
    "calibrate",
    "default_checkpoint_path",
]

# Every name loads on first use: `import llm_qualitative_sort.cli` (and so the command
# line's `--help`) must not pay for LangGraph and LangChain, which take most of a second to
# import; the real providers must not need their extras until they are chosen.
_HOMES = {
    "llm_qualitative_sort.stores.default": ("default_checkpoint_path",),
    "llm_qualitative_sort.stores.cache": (
        "CacheError", "CacheKey", "ComparisonCache", "FileCache", "MemoryCache",
    ),
    "llm_qualitative_sort.errors": (
        "Error", "InputError", "PermanentProviderError", "ProviderError", "QuotaExceededError",
        "RateLimitedError", "RunDetached", "RunLockedError", "RunMismatchError",
        "RunStoppedError", "SettingTypeError", "StorageError", "TransientProviderError",
        "UnknownRunError",
    ),
    "llm_qualitative_sort.graph": ("build_graph",),
    "llm_qualitative_sort.judge_choice": ("JudgeChoice", "calibrate"),
    "llm_qualitative_sort.models": (
        "ComparisonResult", "EventType", "InvalidAnswerError", "MatchResult", "ProgressEvent",
        "RoundResult", "SortResult", "Statistics",
    ),
    "llm_qualitative_sort.providers": (
        "BatchOptions", "GoogleProvider", "LLMProvider", "LangChainProvider",
        "MockLLMProvider", "OpenAIProvider", "PanelProvider",
    ),
    "llm_qualitative_sort.prompts": ("PromptTemplate", "PromptTemplateError"),
    "llm_qualitative_sort.stores.postgres_cache": ("PostgresCache",),
    "llm_qualitative_sort.sorter": ("QualitativeSorter",),
    "llm_qualitative_sort.tournament.elimination.settings": ("Elimination",),
    "llm_qualitative_sort.tournament.swiss.settings": ("Swiss",),
    "llm_qualitative_sort.tournament.pointwise.settings": ("Pointwise",),
    "llm_qualitative_sort.rating.scale": ("Scale",),
    "llm_qualitative_sort.rating.scoring": ("ItemScore", "PointwiseResult", "ScoredCall"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("llm-qualitative-sort")
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
