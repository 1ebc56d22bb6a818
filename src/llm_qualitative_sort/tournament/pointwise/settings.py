"""`Pointwise`: the settings of pointwise scoring on a labelled scale.

Example:
    >>> Pointwise()
    Pointwise(scale='1-4 (default labels)', inverse=False, repetitions=1)
    >>> Pointwise(scale="0-5", repetitions=3).state()["scale"][:2]
    [[0, ''], [1, '']]
    >>> Pointwise(repetitions=0)
    Traceback (most recent call last):
    ...
    ValueError: repetitions must be >= 1, got 0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self

from llm_qualitative_sort.scoring import Scale, ScoreQuestion
from llm_qualitative_sort.tournament.settings import Spell, StrategySettings, positive_int

# More scorings of one text than this is never what anyone meant.
MAX_REPETITIONS = 100


@dataclass(frozen=True, kw_only=True)
class Pointwise(StrategySettings):
    """Pointwise scoring: each item judged alone on a labelled scale, one call per repetition.

    Args:
        scale: The labels: None (default) is 1–4 with descriptions (4 excellent … 1
            useless); "LOW-HIGH" such as "0-5" (bare labels); a mapping of label to
            description or a list of `[label, description]`. Labels are consecutive single
            digits (0–9).
        inverse: Ask the inverse question (how far the text is from meeting the criterion,
            the highest label the farthest) and rank by its complement.
        repetitions: Calls per item; their scores are averaged (they separate items a
            single call leaves tied).

    Each call scores one text: `calls_per_match` is always 1 (stored as
    `comparison_rounds`, which the sorter's keyword cannot change for this strategy).
    """

    name: ClassVar[str] = "pointwise"
    default_calls_per_match: ClassVar[int] = 1
    single_call: ClassVar[bool] = True

    scale: Any = None
    inverse: bool = False
    repetitions: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", Scale.parse(self.scale))
        super().__post_init__()

    if TYPE_CHECKING:  # one text per call: not a field of this strategy (mypy's view)
        calls_per_match: int | None = 1
    else:

        @property
        def calls_per_match(self) -> int:
            """Calls per match: 1, always."""
            return 1

    def __repr__(self) -> str:
        scale = ("1-4 (default labels)" if self.scale.default else
                 f"{self.scale.low}-{self.scale.high}" if not any(
                     text for _, text in self.scale.entries) else self.scale.to_state())
        return (f"Pointwise(scale={scale!r}, inverse={self.inverse}, "
                f"repetitions={self.repetitions})")

    @property
    def question(self) -> ScoreQuestion:
        """What each call asks: the scale and the question's direction."""
        return ScoreQuestion(self.scale, self.inverse)

    @classmethod
    def check(cls, values: Mapping[str, Any], *, spell: Spell) -> None:
        """The scale, a bool `inverse`, repetitions from 1 to 100, one call per match."""
        try:
            Scale.parse(values["scale"])
        except (TypeError, ValueError) as exc:
            # The scale's messages start with "scale": named once, as the caller spells it.
            text = str(exc)
            text = text.removeprefix("scale") if text.startswith("scale") else f": {text}"
            raise type(exc)(f"{spell('scale')}{text}") from None
        if not isinstance(values["inverse"], bool):
            raise TypeError(f"{spell('inverse')} must be a bool, "
                            f"got {type(values['inverse']).__name__}")
        positive_int(spell("repetitions"), values["repetitions"], MAX_REPETITIONS)

    @classmethod
    def from_keywords(cls, given: Mapping[str, Any]) -> Self:
        """The settings from flat keywords (None: not given); errors name the keyword."""
        values = {name: given[name] for name in cls.field_names() if given.get(name) is not None}
        cls.check({**cls._defaults(), **values}, spell=cls.keyword)
        return cls(**values)

    def state(self) -> dict[str, Any]:
        """The flat keys; the scale as plain `[[label, description], ...]` (None: default)."""
        stored = super().state()
        stored["comparison_rounds"] = 1
        stored["scale"] = None if self.scale.default else self.scale.to_state()
        return stored

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Self:
        """The settings a stored run holds."""
        return cls(scale=state.get("scale"), inverse=bool(state.get("inverse", False)),
                   repetitions=int(state.get("repetitions") or 1))
