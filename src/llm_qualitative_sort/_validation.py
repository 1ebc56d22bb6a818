"""Checks on user input, made before any LLM call, with messages that name the culprit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from llm_qualitative_sort.tournament import STRATEGIES, Settings, Strategy

Ranking = Literal["wins", "bradley_terry"]

# Bounds that keep a run finite and storable: a match of more calls, or more lives, is
# never what anyone meant, and the seed must fit the 64-bit integers checkpoints store.
MAX_COMPARISON_ROUNDS = 100
MAX_ELIMINATION_COUNT = 1000
SEED_RANGE = (-(2**63), 2**63 - 1)
MAX_BUDGET = 10**9


def check_settings(
    *,
    elimination_count: Any = 2,
    comparison_rounds: Any = None,
    max_concurrent_requests: Any = 1,
    strategy: Any = "elimination",
    budget: Any = None,
    top_k: Any = None,
    stop_when_settled: Any = False,
    ties: Any = False,
) -> Settings:
    """The validated settings of a run; `TypeError`/`ValueError` naming a bad argument.

    `comparison_rounds=None` takes the strategy's own default (2 for elimination, 1 for
    Swiss).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(map(repr, STRATEGIES))}, "
                         f"got {strategy!r}")
    if comparison_rounds is None:
        comparison_rounds = STRATEGIES[strategy].default_comparison_rounds
    _positive_int("elimination_count", elimination_count, MAX_ELIMINATION_COUNT)
    _positive_int("comparison_rounds", comparison_rounds, MAX_COMPARISON_ROUNDS)
    _positive_int("max_concurrent_requests", max_concurrent_requests)
    if comparison_rounds % 2 and not (strategy == "swiss" and comparison_rounds == 1):
        raise ValueError(
            f"comparison_rounds must be even (half the calls in each order), got "
            f"{comparison_rounds}; only strategy='swiss' allows 1 call per match"
        )
    if budget is not None:
        _positive_int("budget", budget, MAX_BUDGET)
    if top_k is not None:
        _positive_int("top_k", top_k)
    if not isinstance(stop_when_settled, bool):
        raise TypeError(f"stop_when_settled must be a bool, got {type(stop_when_settled).__name__}")
    if not isinstance(ties, bool):
        raise TypeError(f"ties must be a bool, got {type(ties).__name__}")
    if strategy != "swiss":
        _swiss_only(budget=budget, top_k=top_k, stop_when_settled=stop_when_settled or None)
    elif stop_when_settled and top_k is None:
        raise ValueError("stop_when_settled needs top_k: the K whose separation ends the run")
    return Settings(strategy, elimination_count, comparison_rounds, budget, top_k,
                    stop_when_settled, ties)


def check_schedule(schedule: Any, strategy: type[Strategy], provider: Any) -> str:
    """The schedule's name, or `ValueError` when it is unknown or cannot play the run."""
    # Imported here: the schedules wire the graph's nodes, which use this module.
    from llm_qualitative_sort.schedules import SCHEDULES

    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(map(repr, SCHEDULES))}, "
                         f"got {schedule!r}")
    SCHEDULES[schedule].check(strategy, provider)
    return str(schedule)


def _swiss_only(**given: Any) -> None:
    for name, value in given.items():
        if value is not None:
            raise ValueError(f"{name} applies to strategy='swiss' only")


def check_seed(seed: Any) -> None:
    """Raise for a seed that is not an int or does not fit in 64 bits."""
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    low, high = SEED_RANGE
    if not low <= seed <= high:
        raise ValueError(f"seed must fit in 64 bits ({low} … {high}), got {seed}")


def check_criteria(criteria: Any) -> None:
    """Raise for a missing or empty criterion."""
    if not isinstance(criteria, str):
        raise TypeError(f"criteria must be a str, got {type(criteria).__name__}")
    if not criteria.strip():
        raise ValueError("criteria must not be empty")
    _encodable("criteria", criteria)


def check_items(items: Any) -> list[str]:
    """Return the items as a list, or raise naming the bad ones."""
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise TypeError(f"items must be a list of str, got {type(items).__name__}")
    texts = list(items)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"items[{index}] is a {type(text).__name__}, not a str: {text!r}")
        if not text.strip():
            raise ValueError(f"items[{index}] is empty")
        _encodable(f"items[{index}]", text)
    seen: dict[str, int] = {}
    for index, text in enumerate(texts):
        if text in seen:
            raise ValueError(
                f"items[{index}] duplicates items[{seen[text]}]: {_preview(text)}; "
                "remove duplicates first"
            )
        seen[text] = index
    return texts


def _encodable(name: str, text: str) -> None:
    # A lone surrogate (from a broken decode) cannot be sent, stored or hashed as UTF-8.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{name} is not valid Unicode text: {exc.reason} at character {exc.start} "
            f"({_preview(text)})"
        ) from None


def _positive_int(name: str, value: Any, most: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if most is not None and value > most:
        raise ValueError(f"{name} must be at most {most}, got {value}")


def _preview(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def check_timeout(seconds: Any) -> None:
    """Refuse a `call_timeout` that is not a positive, finite number of seconds or None."""
    if seconds is None:
        return
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"call_timeout must be seconds (a number) or None, got {seconds!r}")
    if not 0 < seconds < float("inf"):
        raise ValueError(f"call_timeout must be > 0 seconds, got {seconds}")


def check_ranking(ranking: Any, native: str) -> Ranking:
    """The ranking to use: the one given, or the strategy's own (`native`) for None."""
    if ranking is None:
        return "wins" if native == "wins" else "bradley_terry"
    if ranking not in ("wins", "bradley_terry"):
        raise ValueError(f"ranking must be 'wins' or 'bradley_terry', got {ranking!r}")
    if native == "bradley_terry" and ranking == "wins":
        raise ValueError("ranking='wins' needs strategy='elimination': Swiss pairs by "
                         "strength, so its win counts are not a ranking")
    rank: Ranking = ranking
    return rank


def check_run_id(run_id: Any) -> str:
    """The run id, or `ValueError` for anything but a non-empty string."""
    if not isinstance(run_id, str) or not run_id.strip():
        raise ValueError(f"run_id must be a non-empty str, got {run_id!r}")
    return run_id
