"""`QualitativeSorter`: the public entry point that drives the tournament graph."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from langgraph.types import RetryPolicy

from llm_qualitative_sort.graph.context import DEFAULT_CALL_TIMEOUT, DEFAULT_RETRY
from llm_qualitative_sort.graph.schedules import check_schedule
from llm_qualitative_sort.models import ProgressEvent, SortResult
from llm_qualitative_sort.prompts._run import check_prompt
from llm_qualitative_sort.prompts.template import PromptTemplate
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.results.from_state import Ranking
from llm_qualitative_sort.results.human import HumanLabels
from llm_qualitative_sort.running.arguments import (
    DEFAULT_CHECKPOINTER,
    Checkpointer,
    check_flag,
    check_hooks,
    open_store,
)
from llm_qualitative_sort.running.drive import Tee
from llm_qualitative_sort.running.runs import resume_run, sort_items
from llm_qualitative_sort.running.setup import ProgressCallback, RunSetup
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.tournament import StrategySettings, strategy_class
from llm_qualitative_sort.tournament.checks import (
    check_concurrency,
    check_criteria,
    check_items,
    check_judge,
    check_ranker,
    check_ranking,
    check_retry_policy,
    check_scorer,
    check_seed,
    check_strategy,
    check_timeout,
    check_wait,
    refuse_moved,
)

# People's labels as `sort` takes them (see `results.labelled.checked_human`).
HumanInput = HumanLabels | Mapping[str, Any] | Sequence[Any]


class QualitativeSorter:
    """Ranks texts by a criterion with pairwise LLM judgements, in a tournament of your choice.

    Args:
        provider: The judge.
        criteria: What "better" means, in the user's words.
        strategy: The tournament and its settings, checked when made: `Elimination()` (the
            multi-elimination tournament, the default), `Swiss(budget=..., top_k=...)`
            (Swiss rounds on Bradley–Terry strengths: better rankings per call), or
            `Pointwise(scale=..., inverse=...)` (each text scored alone on a labelled scale,
            one call per text). Or a strategy's name for its default settings. Every
            setting of a strategy lives in its settings object: `Swiss(ties=True,
            verdicts="soft")`; one given here as a keyword of its own (`budget=40`) is
            refused (`SettingTypeError`), saying where it goes.
        elimination_count: The chosen strategy's `elimination_count` (elimination only):
            with a strategy's name it makes its settings; beside a settings object, a value
            that says otherwise is refused. None: not given.
        comparison_rounds: The chosen strategy's `comparison_rounds` (calls per match,
            elimination and Swiss), taken as `elimination_count` is.
        max_concurrent_requests: Upper bound on LLM calls in flight.
        call_timeout: Seconds one call may take before it counts as a transient failure
            (retried), at most 10**9; None for no bound.
        cache: Where to reuse answers already paid for.
        on_progress: Called (plain or async) with every `ProgressEvent`.
        seed: Fixes placement and pairing; None derives one from the run id (a fresh random
            id unless one is given), stored with the run.
        checkpointer: An SQLite file path, a PostgreSQL URI (`postgresql://...`, shared by
            several workers; needs the `postgres` extra), a LangGraph `BaseCheckpointSaver`,
            or None for memory only. By default `$LLM_QUALITATIVE_SORT_CHECKPOINT` if set,
            else an embedded SQLite file (see `default_checkpoint_path`). An empty string,
            a directory, or a URI of another database (mysql://, sqlite:///) is refused
            (`StorageError`) when the sorter is made.
        retry_policy: How transient provider failures are retried, per call: a LangGraph
            `RetryPolicy` (checked when the sorter is made: max_attempts >= 1, intervals
            finite and >= 0, backoff_factor from 1 to 100).
        ranking: "wins" ranks by matches won; "bradley_terry" by the strengths in
            `SortResult.scores`, fitted to the same calls (no extra call). None (default)
            takes the strategy's own: wins for elimination, Bradley–Terry for Swiss; in a
            run with people's labels (`sort(human=...)`), the judge's fit anchored by them.
            "judge" takes the strategy's own order even then (the judge's calls alone).
        wait_for_run: A run is held by one process at a time. When another holds it,
            wait up to this many seconds for it to let go (None: as long as it takes);
            0 raises `RunLockedError` at once.
        schedule: "rounds" (default: each round starts when the last one ends; the result
            depends on the seed alone) or "pipelined" (elimination only, live calls: a
            bracket's players are paired as soon as they are free, so no request slot waits
            for a round's slowest call; the pairings depend on completion order and are
            logged durably, so a resumed run continues exactly).
        allow_judge_change: Let `resume` (or `sort` with the run's id) go on with a judge
            other than the one that started the run (another `model_identity`). Off by
            default, and then refused before any call: the ranking would mix two judges'
            verdicts. When allowed, every call the new judge makes is recorded under its
            name, so the audit credits each call to the judge that made it; the calls of
            the first judge are priced as unknown (its prices are not stored).
        prompt: The judge's prompt, a `PromptTemplate` (None: the default, the same as
            `PromptTemplate.builtin("en")`). Checked with `context` (and a pointwise run's
            scale) when the sorter is made, rendered as its calls will be; its calls are
            cached apart from other prompts', and the run stores it. Providers that build
            their messages themselves (a custom `LLMProvider`, the mock) ignore its text.
        context: The mapping a template reads as `{{ context.KEY }}` (the question, a
            reference answer, a rubric...): plain JSON data, stored with the run (finite
            numbers, integers within 64 bits, at most 32 levels deep). Each item's own
            fields go to `sort(items, fields=...)`.
        allow_prompt_change: Let a resume go on with another template or context than the
            run's (refused by default, before any call, like another judge).
        **moved: Nothing is taken here: a strategy's setting given on its own (`budget=`,
            `top_k=`, `ties=`, `verdicts=`, `scale=`, ...) raises `SettingTypeError` naming
            the settings object it belongs in, any other keyword as Python would.

    Raises:
        InputError: A bad setting, named with its value, before any call
            (`SettingTypeError` for a wrong type or a keyword the sorter does not take).

    Example:
        >>> import asyncio
        >>> from llm_qualitative_sort import MockLLMProvider
        >>> sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger",
        ...                            seed=1, checkpointer=None)
        >>> result = asyncio.run(sorter.sort(["3", "10", "7"]))
        >>> result.rankings[0]
        (1, ['10'])
    """

    def __init__(
        self,
        provider: LLMProvider,
        *,
        criteria: str,
        strategy: str | StrategySettings = "elimination",
        elimination_count: int | None = None,
        comparison_rounds: int | None = None,
        max_concurrent_requests: int = 10,
        call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
        cache: ComparisonCache | None = None,
        on_progress: ProgressCallback | None = None,
        seed: int | None = None,
        checkpointer: Checkpointer = DEFAULT_CHECKPOINTER,
        retry_policy: RetryPolicy = DEFAULT_RETRY,
        ranking: Ranking | Literal["judge"] | None = None,
        wait_for_run: float | None = 0.0,
        schedule: str = "rounds",
        allow_judge_change: bool = False,
        prompt: PromptTemplate | None = None,
        context: Mapping[str, Any] | None = None,
        allow_prompt_change: bool = False,
        **moved: Any,
    ) -> None:
        refuse_moved(moved)
        # The one settings object of the run: what the graph, the stored run and the
        # reports read (a name becomes the same object as its settings).
        self.settings: StrategySettings = check_strategy(
            strategy, elimination_count=elimination_count, comparison_rounds=comparison_rounds)
        check_judge(provider, self.settings.offers_ties)
        check_criteria(criteria)
        check_scorer(provider, self.settings)
        check_ranker(provider, self.settings)
        check_concurrency(max_concurrent_requests)
        check_seed(seed)
        check_timeout(call_timeout)
        check_hooks(cache, on_progress)
        played_by = strategy_class(self.settings)
        self.ranking: Ranking = check_ranking(ranking, played_by.native_ranking)
        # Only the strategy's own order, unnamed, gives way to people's anchored one.
        self._anchor = ranking is None
        self.schedule = check_schedule(schedule, played_by, provider)
        check_wait(wait_for_run)
        self.allow_judge_change = check_flag("allow_judge_change", allow_judge_change)
        self.prompt = check_prompt(prompt, context, self.settings.scores_alone,
                                   getattr(self.settings, "scale", None),
                                   getattr(self.settings, "group_size", 2))
        self.allow_prompt_change = check_flag("allow_prompt_change", allow_prompt_change)
        check_retry_policy(retry_policy)
        self.provider, self.criteria = provider, criteria
        self.max_concurrent_requests, self.call_timeout = max_concurrent_requests, call_timeout
        self.cache, self.on_progress, self.seed = cache, on_progress, seed
        self.retry_policy, self.wait_for_run = retry_policy, wait_for_run
        self._store = open_store(checkpointer)

    @property
    def strategy(self) -> str:
        """The tournament strategy's name."""
        return self.settings.name

    @property
    def elimination_count(self) -> int | None:
        """Losses that eliminate (None: the strategy has no such setting)."""
        count: int | None = getattr(self.settings, "elimination_count", None)
        return count

    @property
    def comparison_rounds(self) -> int:
        """Calls per match."""
        return self.settings.calls

    async def sort(self, items: Sequence[str], run_id: str | None = None, *,
                   fields: Sequence[Mapping[str, Any]] | None = None,
                   human: HumanInput | None = None,
                   allow_human_change: bool = False,
                   adjust: str | Sequence[str] | None = None) -> SortResult:
        """Rank `items`, best first.

        With the `run_id` of an unfinished run of the same items this continues that run; of
        a finished one, it returns the stored result without any LLM call. `fields` gives
        each item (in the same order) the fields the prompt template shows as
        `{{ fields_a.KEY }}` and `{{ fields_b.KEY }}`: plain JSON mappings; only the keys
        the template shows are stored with the run and key the cache. Fewer than two items
        are ranked at once, with no call, and nothing is stored (there is nothing to resume).

        `human` checks the judge against people: their verdicts on pairs and/or scores of
        items (a `HumanLabels`, a mapping `{"verdicts": [(a, b, "A"|"B"|"tie"), ...],
        "scores": {item: score}}`, or a list of verdicts), items named by their index in
        `items`. The judge is also asked every labelled pair the strategy does not play
        (once in each order; a Swiss budget keeps two calls back for each labelled pair);
        the result's `agreement` says how far it agrees with people,
        and its order is the judge's fit anchored by their labels (`order="anchored"`)
        unless the sorter was made with `ranking="judge"` (or "wins" / "bradley_terry").
        The labels are stored with the run: going on with other labels is refused unless
        `allow_human_change=True`; without `human`, a run goes on with its own.

        `adjust` ("length", or a list of "length" and names of numeric fields every item
        has) also fits the judge's preference for those covariates and ranks the items with
        it taken out: `SortResult.adjusted`, beside `rankings`, which it never changes.
        Fields named only here need not be shown by the template. It asks no extra call.

        Raises:
            TypeError, ValueError: Bad items or fields, before any call; an `adjust` field
                that some item lacks or that is no finite number, naming the item.
            PromptTemplateError: The template shows a field some item lacks, or fields are
                given and it shows none; before any call.
            RunMismatchError: `run_id` names a run of other items or settings, or one
                started by another judge (see `allow_judge_change`) or with other human
                labels (see `allow_human_change`).
            RunLockedError: Another process holds the run (see `wait_for_run`).
            StorageError: The checkpoint or journal store cannot be used, before any call.
            InputError: Bad human labels (an unknown item, an item against itself, a
                winner other than A, B or tie), named, before any call.
            RunStoppedError: The run stopped (provider failure, callback error, a journal
                write failure); resume it.
        """
        setup = dataclasses.replace(
            self._setup(), allow_human_change=check_flag("allow_human_change",
                                                         allow_human_change))
        if adjust is None:
            return await sort_items(setup, items, run_id, fields, human)
        # Imported here: the covariates' fits load SciPy's optimizers, which only `adjust` needs.
        from llm_qualitative_sort.results.adjusted import check_adjust, with_adjusted

        adjusting = check_adjust(adjust, check_items(items), fields,
                                 pairwise=not self.settings.scores_alone)
        if adjusting is not None and adjusting.reads_fields and \
                not self.prompt.template.field_keys:
            fields = None  # given for `adjust` alone: the prompt shows none of them
        return with_adjusted(await sort_items(setup, items, run_id, fields, human), adjusting)

    async def astream(
        self, items: Sequence[str], run_id: str | None = None, *,
        fields: Sequence[Mapping[str, Any]] | None = None,
        human: HumanInput | None = None, allow_human_change: bool = False,
        adjust: str | Sequence[str] | None = None,
    ) -> AsyncIterator[ProgressEvent | SortResult]:
        """Like `sort`, but yield every `ProgressEvent` as it happens, then the `SortResult`.

        The sort runs as a task that feeds an unbounded queue, so a slow consumer never
        holds up LLM calls. `on_progress`, if set, is still called. Closing the iterator
        early cancels the run (resume it with its `run_id`).

        Example:
            >>> import asyncio
            >>> from llm_qualitative_sort import MockLLMProvider
            >>> sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger",
            ...                            seed=1, checkpointer=None)
            >>> async def last():
            ...     return [x async for x in sorter.astream(["3", "10", "7"])][-1]
            >>> asyncio.run(last()).rankings[0]
            (1, ['10'])
        """
        events: asyncio.Queue[ProgressEvent | None] = asyncio.Queue()
        worker = copy.copy(self)  # shares the store, so in-memory runs stay resumable
        worker.on_progress = Tee(events, self.on_progress)
        task = asyncio.create_task(worker.sort(items, run_id, fields=fields, human=human,
                                               allow_human_change=allow_human_change,
                                               adjust=adjust))
        task.add_done_callback(lambda _: events.put_nowait(None))
        try:
            while (item := await events.get()) is not None:
                yield item
            yield task.result()
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def resume(self, run_id: str) -> SortResult:
        """Continue the unfinished run `run_id` (or return its result if it finished).

        Raises:
            UnknownRunError: No run with this id in this sorter's checkpointer (a `KeyError`).
            RunMismatchError: The run has other settings, or was started by another judge
                (see `allow_judge_change`); before any call.
            RunLockedError: Another process holds the run (see `wait_for_run`).
        """
        return await resume_run(self._setup(), run_id)

    def _setup(self) -> RunSetup:
        # Made at each call, so a run sees the sorter as it is then (`astream` swaps in its
        # own progress callback on a copy that shares the store).
        return RunSetup(
            store=self._store, wait_for_run=self.wait_for_run, provider=self.provider,
            criteria=self.criteria, settings=self.settings, schedule=self.schedule,
            seed=self.seed, prompt=self.prompt, allow_judge_change=self.allow_judge_change,
            allow_prompt_change=self.allow_prompt_change,
            max_concurrent_requests=self.max_concurrent_requests,
            call_timeout=self.call_timeout, cache=self.cache, retry_policy=self.retry_policy,
            on_progress=self.on_progress, ranking=self.ranking, anchor=self._anchor,
        )

    @property
    def store_path(self) -> Path | None:
        """The SQLite checkpoint file of the runs, or None for other stores."""
        return self._store.path


