"""The settings a LangChain-based judge takes, checked once when it is made.

A bad value (a negative rate, an endless timeout, `adaptive_rate="no"`, an `ftp://`
endpoint) would otherwise show only at the first call, after retries, or never (a rate of
-1 makes no call at all). Pydantic checks them strictly: no string is taken for a number
or a flag, and NaN and infinity are refused.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, ValidationError

from llm_qualitative_sort.errors import InputError, SettingTypeError

# The longest wait or call bound taken, in seconds (about 31 years), as for the sorter's
# own bounds: a larger number is a typo.
MAX_SECONDS = 10**9

Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
Wait = Annotated[float, Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)]
Rate = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Price = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0)]


class Knobs(BaseModel):
    """The provider settings that `check_knobs` knows; unnamed ones keep their default."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    timeout: Seconds | None = None
    max_retries: Count = 0
    requests_per_second: Rate | None = None
    reasks: Count = 1
    input_price_per_million: Price | None = None
    output_price_per_million: Price | None = None
    logprobs: bool = True
    adaptive_rate: bool = True
    rate_wait_limit: Wait = 600.0
    base_url: HttpUrl | None = None


def check_knobs(owner: str, **given: Any) -> None:
    """Refuse any bad setting among `given`, naming it and its value.

    Raises:
        SettingTypeError: A setting of the wrong type (`"5"` for seconds, `"no"` for a
            flag); a `TypeError`.
        InputError: A number out of range, NaN or infinite, or an endpoint that is not an
            http(s) URL; a `ValueError`.

    Example:
        >>> check_knobs("OpenAIProvider", timeout=30, rate_wait_limit=0)
        >>> check_knobs("OpenAIProvider", requests_per_second=-1)
        Traceback (most recent call last):
        ...
        llm_qualitative_sort.errors.InputError: OpenAIProvider: requests_per_second must be ...
    """
    try:
        Knobs(**given)
    except ValidationError as exc:
        problems = [_problem(error) for error in exc.errors()]
        kind = SettingTypeError if all(p[0] for p in problems) else InputError
        raise kind(f"{owner}: " + "; ".join(p[1] for p in problems)) from None


def _problem(error: Any) -> tuple[bool, str]:
    """(a wrong type, the message): "timeout must be a finite number, got inf"."""
    name = str(error["loc"][0])
    wrong_type = str(error["type"]).endswith("_type")
    message = str(error["msg"])
    got = f"got {error['input']!r}"
    if name.endswith("_price_per_million") and not wrong_type:
        # A NaN or an infinity would make every cost, and the JSON report, untrue.
        return False, f"{name} must be a finite number >= 0, {got}"
    if message.startswith("Input should be "):
        return wrong_type, f"{name} must be {message.removeprefix('Input should be ')}, {got}"
    return wrong_type, f"{name} must be an http(s) URL, {got} ({message})"
