"""Checks on user input, made before any LLM call, with messages that name the culprit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def check_settings(
    *, elimination_count: Any, comparison_rounds: Any, max_concurrent_requests: Any = 1
) -> None:
    """Raise `TypeError`/`ValueError` for a bad tournament setting."""
    _positive_int("elimination_count", elimination_count)
    _positive_int("comparison_rounds", comparison_rounds)
    _positive_int("max_concurrent_requests", max_concurrent_requests)
    if comparison_rounds % 2:
        raise ValueError(
            f"comparison_rounds must be even (half the calls in each order), got "
            f"{comparison_rounds}"
        )


def check_criteria(criteria: Any) -> None:
    """Raise for a missing or empty criterion."""
    if not isinstance(criteria, str):
        raise TypeError(f"criteria must be a str, got {type(criteria).__name__}")
    if not criteria.strip():
        raise ValueError("criteria must not be empty")


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
    seen: dict[str, int] = {}
    for index, text in enumerate(texts):
        if text in seen:
            raise ValueError(
                f"items[{index}] duplicates items[{seen[text]}]: {_preview(text)}; "
                "remove duplicates first"
            )
        seen[text] = index
    return texts


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")


def _preview(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")
