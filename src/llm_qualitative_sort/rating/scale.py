"""A pointwise run's scale: consecutive integer labels (single digits), each described.

`Scale.parse` reads what a user gives (None for the default 1–4, "LOW-HIGH", a mapping of
label to description, or `[label, description]` pairs); `describe` is how a prompt shows it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llm_qualitative_sort.errors import InputError, SettingTypeError

# The labels a scale may use: single digits (one token each).
LOWEST_LABEL, HIGHEST_LABEL = 0, 9
# The default scale: 1-4 with descriptions; the inverse question's own wording of it.
DEFAULT_LABELS: tuple[tuple[int, str], ...] = (
    (1, "Useless: does not meet the criterion at all"),
    (2, "Poor: meets a small part of the criterion, with major gaps"),
    (3, "Good: mostly meets the criterion, with minor gaps"),
    (4, "Excellent: fully meets the criterion"),
)
INVERSE_LABELS: tuple[tuple[int, str], ...] = (
    (1, "Meets it: nothing is missing"),
    (2, "Close: minor gaps remain"),
    (3, "Far: major gaps, only a small part is met"),
    (4, "Very far: does not meet the criterion at all"),
)


@dataclass(frozen=True)
class Scale:
    r"""Consecutive integer labels, each with a description (possibly empty).

    Build one with `Scale.parse`: None (the default 1–4), "LOW-HIGH" ("0-5"), a mapping of
    label to description, or a list of `[label, description]` pairs.

    Example:
        >>> Scale.parse("0-3").labels
        (0, 1, 2, 3)
        >>> Scale.parse({1: "bad", 2: "good"}).describe()
        '1: bad\n2: good'
        >>> try:
        ...     Scale.parse("1-12")
        ... except ValueError as refused:
        ...     print(refused)
        scale labels must be single digits 0-9 (one token each), got 1..12
    """

    entries: tuple[tuple[int, str], ...] = DEFAULT_LABELS
    # Whether this is the default scale (the inverse question then words it its own way).
    default: bool = field(default=False, compare=False)

    @classmethod
    def parse(cls, given: Any) -> Scale:
        """The scale `given` describes; `ValueError`/`TypeError` naming what is wrong."""
        if given is None:
            return cls(DEFAULT_LABELS, default=True)
        if isinstance(given, Scale):
            return given
        if isinstance(given, str):
            return cls(_range(given))
        if isinstance(given, Mapping):
            pairs = list(given.items())
        elif isinstance(given, Sequence):
            pairs = [tuple(p) if isinstance(p, Sequence) and not isinstance(p, str) else (p,)
                     for p in given]
        else:
            raise SettingTypeError(f"scale must be 'LOW-HIGH', a mapping of label to description "
                                   f"or a list of [label, description], got "
                                   f"{type(given).__name__}")
        entries = []
        for pair in pairs:
            if len(pair) != 2:
                raise InputError(f"scale entries must be [label, description], got {pair!r}")
            entries.append((_label(pair[0]), _description(pair[1])))
        entries.sort()
        labels = [label for label, _ in entries]
        _check_labels(labels)
        return cls(tuple(entries))

    @property
    def labels(self) -> tuple[int, ...]:
        """The labels, lowest first."""
        return tuple(label for label, _ in self.entries)

    @property
    def low(self) -> int:
        """The lowest label."""
        return self.entries[0][0]

    @property
    def high(self) -> int:
        """The highest label."""
        return self.entries[-1][0]

    def worded(self, inverse: bool) -> Scale:
        """The scale as the question shows it: the default scale has an inverse wording."""
        return Scale(INVERSE_LABELS) if inverse and self.default else self

    def describe(self) -> str:
        """One line per label, highest last: "4: Excellent: ..." (a bare label alone)."""
        return "\n".join(f"{label}: {text}" if text else str(label) for label, text in
                         self.entries)

    def to_state(self) -> list[list[Any]]:
        """Plain JSON data: `[[label, description], ...]`."""
        return [[label, text] for label, text in self.entries]

    @property
    def digest(self) -> str:
        """A short digest of the labels and descriptions (part of cache identities)."""
        text = json.dumps(self.to_state(), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


# "LOW-HIGH" in ASCII digits ("²" and "٣" are digits to `str.isdigit`, not to `int`).
_RANGE = re.compile(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*")


def _range(text: str) -> tuple[tuple[int, str], ...]:
    match = _RANGE.fullmatch(text)
    if match is None:
        raise InputError(f"scale must be 'LOW-HIGH' such as '1-4', got {text!r}")
    if any(len(part.lstrip("0")) > 1 for part in match.groups()):  # checked before any int()
        low, high = (part if len(part) <= 12 else f"{part[:12]}..." for part in match.groups())
        raise InputError(f"scale labels must be single digits 0-9 (one token each), "
                         f"got {low}..{high}")
    low, high = int(match[1]), int(match[2])
    if high <= low:
        raise InputError(f"scale needs LOW < HIGH, got {text!r}")
    return tuple((label, "") for label in range(low, high + 1))


def _label(value: Any) -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*[0-9]{1,18}\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingTypeError(f"scale labels must be integers, got {value!r}")
    return value


def _description(value: Any) -> str:
    if not isinstance(value, str):
        raise SettingTypeError(f"scale descriptions must be strings, got {value!r}")
    return value.strip()


def _check_labels(labels: Sequence[int]) -> None:
    if len(labels) < 2:
        raise InputError(f"scale needs at least two labels, got {list(labels)}")
    if labels != list(range(labels[0], labels[0] + len(labels))):
        raise InputError(f"scale labels must be consecutive integers, got {list(labels)}")
    if labels[0] < LOWEST_LABEL or labels[-1] > HIGHEST_LABEL:
        raise InputError(f"scale labels must be single digits 0-9 (one token each), "
                         f"got {labels[0]}..{labels[-1]}")
