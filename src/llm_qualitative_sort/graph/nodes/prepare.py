"""Entry node: check the input, fix the canonical item order, the seed and the standing."""

from __future__ import annotations

import secrets
from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.schedules import check_schedule
from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.prompts._run import input_prompt
from llm_qualitative_sort.results.human import check_human
from llm_qualitative_sort.results.labelled import label_state, reindexed, within_budget
from llm_qualitative_sort.tournament import parse_settings, strategy_for
from llm_qualitative_sort.tournament.checks import (
    check_criteria,
    check_items,
    check_judge_answers,
    check_ranking,
    check_seed,
)


async def prepare(state: TournamentState,
                  runtime: Runtime[TournamentContext] | None = None) -> dict[str, Any]:
    """Validate, sort the items (so results depend on the set, not the input order)."""
    missing = [name for name in ("items", "criteria") if name not in state]
    if missing:  # Studio and the API server send the input as typed, without checks
        raise InputError(f"the run input has no {' and no '.join(map(repr, missing))}; "
                         'expected {"items": ["text", ...], "criteria": "what makes one better"}')
    items = check_items(state["items"])
    check_criteria(state["criteria"])
    # Studio sends the settings as typed: checked here, as the sorter checks its own.
    settings = parse_settings(state.get("settings") or "elimination")
    seed = state.get("seed")
    check_seed(seed)
    rng_seed = secrets.randbits(63) if seed is None else seed
    strategy = strategy_for(settings, len(items), rng_seed)
    if runtime is not None and runtime.context is not None:
        # Studio names its judge in the run's context: what the run will ask of it (ties,
        # scores, ranking calls) is checked now, as the sorter checks its own when made.
        check_judge_answers(runtime.context.resolve_provider(rng_seed), settings)
    strategy.check_texts(settings, items, state["criteria"])
    schedule = check_schedule(state.get("schedule", "rounds"), type(strategy), provider=None)
    # Checked now, not when the last round is played: a bad value must cost no call.
    ranking = state.get("ranking")
    if ranking is not None:
        check_ranking(ranking, strategy.native_ranking)
    update: dict[str, Any] = {
        "rng_seed": rng_seed,
        "schedule": schedule,
        "item_count": len(items),
        "standing": strategy.opening(items, state["criteria"]),
        "round": 0,
        "completed": 0,
    }
    # Studio's input may leave fields out: the run keeps every field, defaults filled in.
    # A sorter's input holds them all already, and is not checkpointed a second time.
    if state.get("settings") != settings.stored():
        update["settings"] = settings.stored()
    # A built-in named by its language: its text (the pointwise one for a pointwise run).
    update.update(input_prompt(state, settings.scores_alone,
                               getattr(settings, "scale", None),
                               getattr(settings, "group_size", 2)))
    canonical = sorted(items)
    if state.get("human"):  # Studio's are as typed; a sorter's checked already
        checked = check_human(state["human"], items)
        within_budget(settings, len(items), checked)  # refused before any call
        labels = label_state(reindexed(checked, items, canonical))
        if labels != state["human"]:
            update["human"] = labels
    if canonical != items:
        update["items"] = canonical
        if "fields" in update:  # parallel to the items: in their canonical order too
            by_text = dict(zip(items, update["fields"], strict=True))
            update["fields"] = [by_text[text] for text in canonical]
    return update
