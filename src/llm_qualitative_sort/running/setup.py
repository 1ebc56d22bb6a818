"""What a `QualitativeSorter` hands each run: its store, its judge and the run's settings.

The sorter makes a `RunSetup` at each `sort` or `resume`, so the modules that start, match
and drive a run (`runs`, `stored`, `drive`) read plain data, never the sorter itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.types import RetryPolicy

from llm_qualitative_sort.cache import ComparisonCache
from llm_qualitative_sort.models import ProgressEvent
from llm_qualitative_sort.prompts._run import with_fields
from llm_qualitative_sort.prompts.setup import PromptSetup
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.results.from_state import Ranking
from llm_qualitative_sort.running.stored import RunPlan
from llm_qualitative_sort.stores import Store
from llm_qualitative_sort.tournament import StrategySettings

ProgressCallback = Callable[[ProgressEvent], Awaitable[None] | None]


@dataclass(frozen=True)
class RunSetup:
    """What a `QualitativeSorter` hands its runs: where they live, the judge, the settings.

    Every field was checked when the sorter was made.
    """

    store: Store
    wait_for_run: float | None
    provider: LLMProvider
    criteria: str
    settings: StrategySettings
    schedule: str
    seed: int | None
    prompt: PromptSetup
    allow_judge_change: bool
    allow_prompt_change: bool
    max_concurrent_requests: int
    call_timeout: float | None
    cache: ComparisonCache | None
    retry_policy: RetryPolicy
    on_progress: ProgressCallback | None
    ranking: Ranking

    @property
    def store_path(self) -> Path | None:
        """The SQLite checkpoint file, or None for other stores."""
        return self.store.path

    def plan(self) -> RunPlan:
        """What this setup asks of a run, beside its items."""
        return RunPlan(self.criteria, self.settings, self.schedule, self.seed,
                       self.provider.model_identity, self.prompt, self.allow_judge_change,
                       self.allow_prompt_change)

    def asking(self, texts: Sequence[str], fields: Any) -> RunSetup:
        """This setup, its prompt showing the fields of `texts` (checked; None: none)."""
        return dataclasses.replace(self, prompt=with_fields(self.prompt, texts, fields))
