"""`QualitativeSorter`'s arguments that are not a run's settings: checks and the store.

Each check raises before any call, naming the argument. (A run's settings are checked by
`tournament.checks`; its strategy's by its settings class.)
"""

from __future__ import annotations

import os
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from llm_qualitative_sort.errors import SettingTypeError, StorageError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.panel import leaf_judges
from llm_qualitative_sort.providers.questions import Compare, Rank, Score
from llm_qualitative_sort.stores import Store, store_for
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.stores.default import CHECKPOINT_VARIABLE, default_checkpointer
from llm_qualitative_sort.tournament.checks import checkpoint_problem
from llm_qualitative_sort.tournament.settings import StrategySettings

Checkpointer = str | os.PathLike[str] | BaseCheckpointSaver[Any] | None


class _Default:
    def __repr__(self) -> str:
        return "<default: embedded SQLite file>"


DEFAULT_CHECKPOINTER: Any = _Default()


def check_judge(provider: Any, ties: bool) -> None:
    """Refuse a provider that is not an `LLMProvider`, or `ties` it cannot be offered."""
    if not isinstance(provider, LLMProvider):
        raise SettingTypeError(f"provider must be an LLMProvider, got {type(provider).__name__}")
    if not ties:
        return
    # The panel's judges first: the refusal then names the one that cannot take a tie.
    for judge in [*leaf_judges(provider), provider]:
        if judge.answers(Compare, ties=True):
            continue
        name = type(judge).__name__
        if type(judge).answers is LLMProvider.answers:  # declares nothing: its signature
            raise SettingTypeError(f"ties=True: {name}.compare_call takes no `ties` keyword, "
                                   "so it cannot be offered a tie; add `ties: bool = False`")
        raise SettingTypeError(f"ties=True: {name} cannot be offered a tie (its `answers` "
                               "says so)")


def check_scorer(provider: LLMProvider, settings: StrategySettings) -> None:
    """Refuse a run that scores texts alone with a provider that cannot.

    Pointwise runs and Swiss runs with a pre-pass score texts alone (in batch mode too: a
    pre-pass round's requests are score requests, the later rounds' comparisons).
    """
    prepass = getattr(settings, "prepass", None)  # Swiss's
    if settings.scores_alone:
        what = f"strategy={settings.name!r}"
    elif prepass is not None:
        what = f"prepass={prepass!r}"
    else:
        return
    for judge in [provider, *leaf_judges(provider)]:
        if not judge.answers(Score):
            raise SettingTypeError(f"{what}: {type(judge).__name__} has no score_call, "
                                   "so it cannot score a text alone")


def check_ranker(provider: LLMProvider, settings: StrategySettings) -> None:
    """Refuse a run of ranking calls (Swiss `group_size` > 2) a provider cannot answer.

    Every judge of a panel must answer `Rank` (its `answers` says so). In batch mode the
    provider's batch asks them, by the same rules.
    """
    size = getattr(settings, "group_size", 2)  # Swiss's
    if size <= 2:
        return
    for judge in [provider, *leaf_judges(provider)]:
        if not judge.answers(Rank):
            raise SettingTypeError(f"group_size={size}: {type(judge).__name__} cannot answer a "
                                   "ranking call (its `answers(Rank)` is False); use "
                                   "group_size=2 (pairwise calls) with this judge")


def check_hooks(cache: Any, on_progress: Any) -> None:
    """Refuse a cache that is not a `ComparisonCache`, or a callback that cannot be called."""
    if cache is not None and not isinstance(cache, ComparisonCache):
        raise SettingTypeError(f"cache must be a ComparisonCache, got {type(cache).__name__}")
    if on_progress is not None and not callable(on_progress):
        raise SettingTypeError("on_progress must be callable")


def check_flag(name: str, value: Any) -> bool:
    """`value`, or `TypeError` naming `name` when it is not a bool."""
    if not isinstance(value, bool):
        raise SettingTypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def open_store(checkpointer: Any) -> Store:
    """The store of a `checkpointer=` argument (`DEFAULT_CHECKPOINTER`: the default one).

    Raises:
        StorageError: An empty path, a directory, or a URI of another database.
    """
    named = "checkpointer"
    if checkpointer is DEFAULT_CHECKPOINTER:
        checkpointer = default_checkpointer()
        named = f"the default checkpointer (${CHECKPOINT_VARIABLE} or the data directory)"
    problem = checkpoint_problem(checkpointer)
    if problem is not None:
        raise StorageError(f"{named} {problem}")
    return store_for(checkpointer)
