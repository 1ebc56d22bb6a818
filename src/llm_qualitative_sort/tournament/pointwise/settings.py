"""`Pointwise`: the settings of pointwise scoring on a labelled scale.

Example:
    >>> Pointwise()
    Pointwise(scale='1-4 (default labels)', inverse=False, repetitions=1)
    >>> Pointwise(scale="0-5", repetitions=3).stored()["scale"][:2]
    [[0, ''], [1, '']]
    >>> Pointwise(repetitions=0)
    Traceback (most recent call last):
    ...
    llm_qualitative_sort.errors.InputError: repetitions must be >= 1, got 0
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, PlainSerializer, WithJsonSchema

from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.rating.scoring import Scale, ScoreQuestion
from llm_qualitative_sort.tournament.settings import StrategySettings

# More scorings of one text than this is never what anyone meant.
MAX_REPETITIONS = 100


def _scale(given: Any) -> Scale:
    # Raised as ours, so that the refusal keeps the scale's own message.
    try:
        return Scale.parse(given)
    except TypeError as exc:
        raise SettingTypeError(str(exc)) from None
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _stored_scale(scale: Scale) -> list[list[Any]] | None:
    return None if scale.default else scale.to_state()


# A scale as users give it and runs store it: None (the default 1-4), "LOW-HIGH", or
# [[label, description], ...].
ScaleSetting = Annotated[
    Scale, BeforeValidator(_scale), PlainSerializer(_stored_scale),
    WithJsonSchema({"anyOf": [
        {"type": "null"}, {"type": "string", "pattern": r"^\d-\d$"},
        {"type": "array", "items": {"type": "array", "prefixItems": [
            {"type": "integer"}, {"type": "string"}]}}]}),
]


class Pointwise(StrategySettings):
    """Pointwise scoring: each item judged alone on a labelled scale, one call per repetition.

    Attributes:
        scale: The labels: None (default) is 1–4 with descriptions (4 excellent … 1
            useless); "LOW-HIGH" such as "0-5" (bare labels); a mapping of label to
            description or a list of `[label, description]`. Labels are consecutive single
            digits (0–9).
        inverse: Ask the inverse question (how far the text is from meeting the criterion,
            the highest label the farthest) and rank by its complement.
        repetitions: Calls per item; their scores are averaged (they separate items a
            single call leaves tied).

    Each call scores one text alone: there is no match, so no `comparison_rounds`, `ties`
    or `verdicts`.
    """

    name: ClassVar[str] = "pointwise"
    scores_alone: ClassVar[bool] = True
    model_config = StrategySettings.model_config | {"arbitrary_types_allowed": True}

    strategy: Literal["pointwise"] = Field(default="pointwise", repr=False)
    scale: ScaleSetting = Field(default_factory=lambda: Scale.parse(None))
    inverse: bool = Field(default=False, strict=True)
    repetitions: int = Field(default=1, ge=1, le=MAX_REPETITIONS, strict=True)

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
