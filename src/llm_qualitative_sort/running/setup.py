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

from llm_qualitative_sort.models import ProgressEvent
from llm_qualitative_sort.prompts._run import with_fields
from llm_qualitative_sort.prompts.setup import PromptSetup
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.results.from_state import Ranking
from llm_qualitative_sort.results.human import HumanLabels
from llm_qualitative_sort.results.labelled import label_state, reindexed
from llm_qualitative_sort.running.stored import RunPlan
from llm_qualitative_sort.stores import Store
from llm_qualitative_sort.stores.cache import ComparisonCache
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
    # Rank by the judge's fit anchored by people's labels when the run has any (False:
    # the sorter was asked for the judge's own order).
    anchor: bool = True
    # People's labels about the items given to `sort` (None: the run's own, if any).
    human: HumanLabels | None = None
    allow_human_change: bool = False

    def canonical_human(self, texts: Sequence[str]) -> dict[str, Any] | None:
        """`human` (about `texts`) as a run stores it, its items in text order; or None."""
        if self.human is None:
            return None
        return label_state(reindexed(self.human, texts, sorted(texts)))

    @property
    def store_path(self) -> Path | None:
        """The SQLite checkpoint file, or None for other stores."""
        return self.store.path

    def plan(self) -> RunPlan:
        """What this setup asks of a run, beside its items."""
        return RunPlan(self.criteria, self.settings, self.schedule, self.seed,
                       self.provider.model_identity, self.prompt, self.allow_judge_change,
                       self.allow_prompt_change, self.human, self.allow_human_change)

    def asking(self, texts: Sequence[str], fields: Any) -> RunSetup:
        """This setup, its prompt showing the fields of `texts` (checked; None: none)."""
        return dataclasses.replace(self, prompt=with_fields(self.prompt, texts, fields))
