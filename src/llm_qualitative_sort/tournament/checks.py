"""Checks on user input, made before any LLM call, with messages that name the culprit."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from llm_qualitative_sort.rating.soft import check_verdicts
from llm_qualitative_sort.tournament import STRATEGIES, Settings

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
    verdicts: Any = "hard",
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
                    stop_when_settled, ties, check_verdicts(verdicts))


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
    _seconds("call_timeout", seconds, zero=False)


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


# The longest wait or call bound taken, in seconds (about 31 years): a larger number is a
# typo, and past about 1e308 it no longer fits the float every clock works in.
MAX_SECONDS = 10**9


def _seconds(name: str, value: Any, *, zero: bool) -> None:
    """Refuse anything but a finite number of seconds (> 0, or >= 0 with `zero`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be seconds (an int or float) or None, got {value!r}")
    least = ">= 0" if zero else "> 0"
    if not (0 <= value if zero else 0 < value) or not value <= MAX_SECONDS:
        raise ValueError(f"{name} must be {least} seconds, at most {MAX_SECONDS} "
                         f"(None: no bound), got {_number(value)}")


def _number(value: float) -> str:
    # An int too large for a float (10**400) cannot be formatted as one, nor always printed.
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    return f"{value:.6g}"


def check_wait(seconds: Any) -> None:
    """Refuse a `wait_for_run` that is not a finite number of seconds >= 0 or None."""
    if seconds is not None:
        _seconds("wait_for_run", seconds, zero=True)


def check_retry_policy(policy: Any) -> None:
    """Refuse a `retry_policy` that is not a LangGraph `RetryPolicy` with usable numbers."""
    from langgraph.types import RetryPolicy

    if not isinstance(policy, RetryPolicy):
        raise TypeError("retry_policy must be a langgraph.types.RetryPolicy, got "
                        f"{type(policy).__name__}: {policy!r}")
    _positive_int("retry_policy.max_attempts", policy.max_attempts)
    for name in ("initial_interval", "max_interval"):
        _seconds(f"retry_policy.{name}", getattr(policy, name), zero=True)
    factor = policy.backoff_factor
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 1 <= factor <= 100:
        raise ValueError(f"retry_policy.backoff_factor must be a number from 1 to 100, "
                         f"got {factor!r}")


def checkpoint_problem(target: Any) -> str | None:
    """What is wrong with a checkpoint path or URI, or None; the caller names the argument.

    A URI of another database (mysql://, sqlite:///) would otherwise be taken for a file
    name and become an SQLite file in the working directory. Only the scheme is repeated:
    the rest may hold a password.
    """
    if isinstance(target, str):
        if not target.strip():
            return "is empty: give a file path, a postgresql:// URI, or None for memory only"
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", target)
        if scheme and scheme.group(1).lower() not in ("postgresql", "postgres"):
            return (f"is a {scheme.group(1)}:// URI; only postgresql:// URIs and SQLite "
                    "file paths are supported")
    if isinstance(target, os.PathLike) or (isinstance(target, str) and "://" not in target):
        path = Path(target)
        if path.is_dir():
            return (f"{str(path)!r}: it is a directory (give a file path, such as "
                    f"{str(path / 'runs.sqlite3')!r})")
    return None
