"""The settings of a strategy: one frozen pydantic model per strategy, checked when it is made.

Each strategy's folder holds its settings model (`elimination.Elimination`,
`swiss.Swiss`, `pointwise.Pointwise`), a subclass of `StrategySettings` whose `strategy`
field names it (the discriminator of `registry.StrategyChoice`). A settings object is what
the sorter, the graph, the command line, the config file, Studio and the stored run read:
the same field names everywhere (`elimination_count`, `comparison_rounds`, `budget`, ...).

A refused value raises `InputError` (`SettingTypeError` for a wrong type) naming the field
and the value, never pydantic's own `ValidationError`: `except llm_qualitative_sort.Error`
catches every refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from llm_qualitative_sort.errors import Error, InputError, SettingTypeError

# Bounds that keep a run finite and storable: a match of more calls is never what anyone
# meant.
MAX_CALLS_PER_MATCH = 100

# Calls per match: half in each presentation order (each strategy says which counts it takes).
CallsPerMatch = Annotated[int, Field(ge=1, le=MAX_CALLS_PER_MATCH, strict=True)]

# Names the settings had before each setting had one name: what each is called now.
RENAMED: Mapping[str, str] = {"losses": "elimination_count",
                              "calls_per_match": "comparison_rounds"}

# How a type error names what was expected, by pydantic's error type.
_EXPECTED = {"int_type": "an int", "bool_type": "a bool", "string_type": "a str",
             "int_from_float": "an int"}


class StrategySettings(BaseModel):
    """What one strategy needs to play a run (see its subclasses for the fields).

    Fields are given by keyword only; a bad value raises `InputError` (`SettingTypeError`
    for a wrong type) naming the field and the value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # The strategy's name: the `strategy` field's only value (`strategy="swiss"`).
    name: ClassVar[str]
    # Whether users rank with it (a refusal names it as the home of a setting); a strategy
    # that only other features play (the labelled pairs of a calibration) is not.
    offered: ClassVar[bool] = True
    # Whether its every call scores one text alone (no pairs): the run asks a pointwise
    # prompt, and its result holds scores rather than a fit of matches.
    scores_alone: ClassVar[bool] = False

    # Which strategy (each subclass fixes it): the discriminator of its plain data.
    strategy: str = Field(repr=False)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise refusal(type(self), exc) from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise refusal(type(self), exc) from None

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Self:
        """The settings `data` holds (a `stored()` dump), refused as the constructor would."""
        return cls(**data)

    @property
    def calls(self) -> int:
        """Calls per match (1 for a strategy that judges each text alone)."""
        return 1

    @property
    def offers_ties(self) -> bool:
        """Whether the judge may answer that two texts are equally good."""
        return False

    @property
    def soft_verdicts(self) -> bool:
        """Whether the fits take each call's probability where the judge sent one."""
        return False

    def stored(self) -> dict[str, Any]:
        """The plain data a run stores: every field, "strategy" first (see `parse`)."""
        return self.model_dump(mode="json")


class PairwiseSettings(StrategySettings):
    """The settings every strategy that compares two texts shares (elimination, Swiss).

    Args:
        ties: Let the judge answer that two texts are equally good (off by default). The
            prompt and the answer's schema then offer "tie"; a tied call is half a win
            for each side in the Bradley–Terry fit, and counts for neither in a match's
            verdict (a match whose calls tie overall is a draw). Without it, a provider
            that answers "tie" gets no verdict for that call (counted in `failed_calls`).
        verdicts: "hard" (default): each call counts as its verdict; "soft": the
            Bradley–Terry fits (Swiss pairing, `scores`, rankings by strength) take the
            judge's probability that the first-shown text wins where it sent one.
    """

    # Whether one call per match is allowed (else an even number, half in each order).
    single_call: ClassVar[bool] = False

    comparison_rounds: CallsPerMatch = 2
    ties: bool = Field(default=False, strict=True)
    verdicts: Literal["hard", "soft"] = "hard"

    @property
    def calls(self) -> int:
        """Calls per match."""
        return self.comparison_rounds

    @property
    def offers_ties(self) -> bool:
        """`ties`."""
        return self.ties

    @property
    def soft_verdicts(self) -> bool:
        """Whether `verdicts` is "soft"."""
        return self.verdicts == "soft"

    @model_validator(mode="after")
    def _half_in_each_order(self) -> Self:
        calls = self.comparison_rounds
        if calls % 2 and not (self.single_call and calls == 1):
            if self.single_call:
                raise InputError(f"comparison_rounds must be 1 or even (half the calls in "
                                 f"each order), got {calls}")
            raise InputError(f"comparison_rounds must be even (half the calls in each "
                             f"order), got {calls}; only strategy='swiss' allows 1 call "
                             "per match")
        return self


def refusal(model: type[BaseModel], exc: ValidationError) -> Error:
    """The `InputError` (or `SettingTypeError`) that says what pydantic refused, readably.

    A refusal raised by a validator of ours is returned as it was raised. `model` is a
    strategy's settings, or another model of arguments checked the same way.
    """
    errors = exc.errors()
    made = [_refused(model, error) for error in errors]
    if len(made) == 1:
        return made[0]
    kind = SettingTypeError if isinstance(made[0], TypeError) else InputError
    return kind("; ".join(str(error) for error in made))


def _refused(model: type[BaseModel], error: Any) -> Error:
    kind, value, name = error["type"], error.get("input"), model.__name__
    ctx = error.get("ctx") or {}
    field = ".".join(str(part) for part in error["loc"]) or name
    if isinstance(ctx.get("error"), Error):
        found: Error = ctx["error"]
        return found
    if kind == "extra_forbidden":
        return _unknown(model, field, value)
    if kind in _EXPECTED:
        return SettingTypeError(f"{field} must be {_EXPECTED[kind]}, got {type(value).__name__}")
    if kind == "greater_than_equal":
        return InputError(f"{field} must be >= {ctx['ge']}, got {value!r}")
    if kind == "less_than_equal":
        return InputError(f"{field} must be at most {ctx['le']}, got {value!r}")
    if kind == "literal_error":
        expected = str(ctx["expected"]).replace("'", '"')
        known = model.model_fields.get(field)
        if known is not None and known.default is None:
            expected = "None, " + expected
        return InputError(f"{field} must be {expected}, got {value!r}")
    if kind == "frozen_instance":
        return SettingTypeError(f"{name} is frozen: make a new one with {field}={value!r}")
    return InputError(f"{field} of {name}: {error['msg']}, got {value!r}")


def _unknown(model: type[BaseModel], field: str, value: Any) -> SettingTypeError:
    """A field `model` does not have: its name now, or the strategies that have it."""
    name = model.__name__
    if RENAMED.get(field) in model.model_fields:
        return SettingTypeError(f"{field} is now called {RENAMED[field]}: "
                                f"{name}({RENAMED[field]}={value!r})")
    owners = " or ".join(f"{owner.__name__}({field}={value!r})"
                         for owner in _strategies(StrategySettings) if field in owner.model_fields)
    return SettingTypeError(f"{field} is not a setting of {name}"
                            + (f"; it belongs to strategy={owners}" if owners else ""))


def _strategies(base: type[StrategySettings]) -> list[type[StrategySettings]]:
    """The settings models of the strategies (the subclasses that name one)."""
    found: list[type[StrategySettings]] = []
    for model in base.__subclasses__():
        found += [model] * ("name" in vars(model) and model.offered) + _strategies(model)
    return found

