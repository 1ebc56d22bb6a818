"""The settings of a strategy: one small frozen object per strategy, checked when it is made.

Each strategy's folder holds its settings class (`elimination.Elimination`,
`swiss.Swiss`), a subclass of `StrategySettings`. A settings object is what the sorter,
the graph, the command line, Studio and the reports read; `state()` is how a run stores it
(the flat keys runs have always stored, so that runs stored by earlier versions resume),
and `from_state` reads it back. `KEYWORDS` names the flat keyword of each field — the
`QualitativeSorter` keyword, the state key, the command line's `--flag` and Studio's input
key — so that `strategy="swiss", budget=4000` and `strategy=Swiss(budget=4000)` are one run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

# Bounds that keep a run finite and storable: a match of more calls is never what anyone
# meant.
MAX_CALLS_PER_MATCH = 100

Spell = Callable[[str], str]


@dataclass(frozen=True, kw_only=True)
class StrategySettings:
    """What one strategy needs to play a run (see its subclasses for the fields).

    Every subclass ends with `calls_per_match`: calls per match, half in each presentation
    order (an even number), or 1 where the strategy allows it; None takes the strategy's
    own default, filled in when the object is made. Fields are given by keyword only.
    """

    # The strategy's name (`strategy=` and the stored run's "strategy").
    name: ClassVar[str]
    # Calls per match when none is given, and whether one call per match is allowed.
    default_calls_per_match: ClassVar[int] = 2
    single_call: ClassVar[bool] = False
    # The flat keyword (sorter keyword, state key, CLI flag, Studio key) of each field.
    KEYWORDS: ClassVar[Mapping[str, str]] = {"calls_per_match": "comparison_rounds"}
    # State keys every run stores, with the value a strategy that has no such field keeps
    # there (runs have always stored them: the state keeps its shape).
    SHARED_STATE: ClassVar[Mapping[str, Any]] = {"elimination_count": 2}

    if TYPE_CHECKING:  # each subclass declares it last, so that it shows last
        calls_per_match: int | None

    def __post_init__(self) -> None:
        if self.calls_per_match is None:
            object.__setattr__(self, "calls_per_match", self.default_calls_per_match)
        self.check(self.values(), spell=lambda name: name)

    @property
    def calls(self) -> int:
        """Calls per match (the default already filled in)."""
        assert self.calls_per_match is not None
        return self.calls_per_match

    def values(self) -> dict[str, Any]:
        """The fields and their values."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def field_names(cls) -> list[str]:
        """The fields of the settings, in their order."""
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def keyword(cls, field: str) -> str:
        """The flat keyword of `field` (`calls_per_match` → `comparison_rounds`)."""
        return cls.KEYWORDS.get(field, field)

    @classmethod
    def keywords(cls) -> list[str]:
        """The flat keywords of every field."""
        return [cls.keyword(name) for name in cls.field_names()]

    @classmethod
    def check(cls, values: Mapping[str, Any], *, spell: Spell) -> None:
        """Raise `TypeError`/`ValueError` for a bad value, naming it with `spell(field)`."""
        calls = values["calls_per_match"]
        positive_int(spell("calls_per_match"), calls, MAX_CALLS_PER_MATCH)
        if calls % 2 and not (cls.single_call and calls == 1):
            if cls.single_call:  # Swiss: 1, or half the calls in each order
                raise ValueError(f"{spell('calls_per_match')} must be 1 or even (half the "
                                 f"calls in each order), got {calls}")
            raise ValueError(
                f"{spell('calls_per_match')} must be even (half the calls in each order), "
                f"got {calls}; only strategy='swiss' allows 1 call per match")

    @classmethod
    def from_keywords(cls, given: Mapping[str, Any]) -> Self:
        """The settings from flat keywords (None: not given); errors name the keyword."""
        values = {name: given.get(cls.keyword(name)) for name in cls.field_names()}
        values = {name: value for name, value in values.items() if value is not None}
        if values.get("calls_per_match") is None:
            values["calls_per_match"] = cls.default_calls_per_match
        cls.check({**cls._defaults(), **values}, spell=cls.keyword)
        return cls(**values)

    def state(self) -> dict[str, Any]:
        """The flat keys a run stores: "strategy", the shared keys, then every field's."""
        stored: dict[str, Any] = {"strategy": self.name, **self.SHARED_STATE}
        stored.update({self.keyword(name): value for name, value in self.values().items()})
        return stored

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Self:
        """The settings a stored run holds (keys it never stored take their defaults).

        A run stored before `comparison_rounds` was recorded played two calls per match.
        """
        values = {name: state[cls.keyword(name)] for name in cls.field_names()
                  if state.get(cls.keyword(name)) is not None}
        values.setdefault("calls_per_match", 2)
        return cls(**values)

    @classmethod
    def owned_keys(cls) -> list[str]:
        """The state keys that are this strategy's settings (shown, and checked on resume)."""
        return ["strategy", *cls.keywords()]

    @classmethod
    def _defaults(cls) -> dict[str, Any]:
        return {f.name: f.default for f in dataclasses.fields(cls)}


def positive_int(name: str, value: Any, most: int | None = None) -> None:
    """Refuse anything but an int >= 1 (and <= `most`), naming it `name`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if most is not None and value > most:
        raise ValueError(f"{name} must be at most {most}, got {value}")
