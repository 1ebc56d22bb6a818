"""Entry node: check the input, fix the canonical item order and the run seed."""

from __future__ import annotations

import secrets
from typing import Any

from llm_qualitative_sort._validation import check_criteria, check_items, check_settings
from llm_qualitative_sort.graph.state import TournamentState


def prepare(state: TournamentState) -> dict[str, Any]:
    """Validate, sort the items (so results depend on the set, not the input order)."""
    missing = [name for name in ("items", "criteria") if name not in state]
    if missing:  # Studio and the API server send the input as typed, without checks
        raise ValueError(f"the run input has no {' and no '.join(map(repr, missing))}; "
                         'expected {"items": ["text", ...], "criteria": "what makes one better"}')
    items = check_items(state["items"])
    check_criteria(state["criteria"])
    elimination_count = state.get("elimination_count", 2)
    comparison_rounds = state.get("comparison_rounds", 2)
    check_settings(elimination_count=elimination_count, comparison_rounds=comparison_rounds)
    seed = state.get("seed")
    update: dict[str, Any] = {
        "elimination_count": elimination_count,
        "comparison_rounds": comparison_rounds,
        "rng_seed": secrets.randbits(63) if seed is None else seed,
        "losses": [0] * len(items),
        "wins": [0] * len(items),
        "round": 0,
        "completed": 0,
    }
    canonical = sorted(items)
    if canonical != items:
        update["items"] = canonical
    return update
