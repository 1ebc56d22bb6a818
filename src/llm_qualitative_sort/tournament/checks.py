"""Checks on user input, made before any LLM call, with messages that name the culprit."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from llm_qualitative_sort.errors import InputError, SettingTypeError, cut
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.panel import leaf_judges
from llm_qualitative_sort.providers.questions import Compare, Rank, Score
from llm_qualitative_sort.tournament.registry import STRATEGIES, settings_class
from llm_qualitative_sort.tournament.settings import StrategySettings, refusal

Ranking = Literal["wins", "bradley_terry", "pointwise"]

# The seed must fit the 64-bit integers checkpoints store.
SEED_RANGE = (-(2**63), 2**63 - 1)


class _Counts(BaseModel):
    """The sorter's integer arguments, each checked alone by `_check` as it is given.

    Strict, as the strategies' settings: neither a bool, a float nor a string passes for an
    int. The sorter's other arguments keep hand-written checks: pydantic's strict float
    still takes a Decimal, a Fraction or numpy's bool for seconds, and its strings drop
    neither the blanks `str.strip` drops (U+001C) nor take a lone surrogate as a str.
    """

    model_config = ConfigDict(strict=True, frozen=True)

    seed: Annotated[int, Field(ge=SEED_RANGE[0], le=SEED_RANGE[1])] | None = None
    max_concurrent_requests: Annotated[int, Field(ge=1)] = 1
    max_attempts: Annotated[int, Field(ge=1, alias="retry_policy.max_attempts")] = 1


def _check(name: str, value: Any) -> None:
    """Refuse `value` for the argument `name`, worded as the strategies' settings are."""
    try:
        _Counts(**{name: value})
    except ValidationError as exc:
        if name != "seed":
            raise refusal(_Counts, exc) from None
        # The seed's own words: None is taken too, and the bound is the stores' 64 bits.
        if exc.errors()[0]["type"] == "int_type":
            raise SettingTypeError(f"seed must be an int or None, got {type(value).__name__}"
                                   ) from None
        low, high = SEED_RANGE
        raise InputError(f"seed must fit in 64 bits ({low} … {high}), got {value}") from None


def check_strategy(strategy: Any = "elimination", *, elimination_count: int | None = None,
                   comparison_rounds: int | None = None) -> StrategySettings:
    """The settings of a run: `strategy` (a name or a settings object) with two shorthands.

    `elimination_count` and `comparison_rounds` (None: not given) are the chosen strategy's
    fields: with a strategy's name they make its settings; beside a settings object, one
    that says otherwise is refused. A strategy without the field refuses it.

    Example:
        >>> from llm_qualitative_sort.tournament.swiss import Swiss
        >>> check_strategy("elimination", elimination_count=3)
        Elimination(comparison_rounds=2, ties=False, verdicts='hard', elimination_count=3)
        >>> check_strategy(Swiss(comparison_rounds=2), comparison_rounds=4)
        Traceback (most recent call last):
        ...
        llm_qualitative_sort.errors.InputError: comparison_rounds=4 contradicts \
strategy=Swiss(...): its comparison_rounds is 2; give it in one place
    """
    given = {name: value for name, value in (("elimination_count", elimination_count),
                                              ("comparison_rounds", comparison_rounds))
             if value is not None}
    kind = type(strategy) if isinstance(strategy, StrategySettings) else settings_class(strategy)
    for name, value in given.items():
        if name not in kind.model_fields:
            owners = " or ".join(f"{owner.__name__}({name}={value!r})"
                                 for owner in _owners(name))
            raise SettingTypeError(f"{name} is not a setting of {kind.__name__}; it belongs "
                                   f"to strategy={owners}")
    if not isinstance(strategy, StrategySettings):
        return kind(**given)
    for name, value in given.items():
        if getattr(strategy, name) != value:
            raise InputError(f"{name}={value!r} contradicts strategy={kind.__name__}(...): "
                             f"its {name} is {getattr(strategy, name)!r}; give it in one place")
    return strategy


def refuse_moved(given: Mapping[str, Any]) -> None:
    """Refuse keywords the sorter does not take, saying where a strategy's setting lives.

    Example:
        >>> refuse_moved({"budget": 40})
        Traceback (most recent call last):
        ...
        llm_qualitative_sort.errors.SettingTypeError: budget is a Swiss setting: \
strategy=Swiss(budget=40)
    """
    for name, value in given.items():
        owners = _owners(name)
        if not owners:
            raise SettingTypeError(f"QualitativeSorter got an unexpected keyword {name!r}")
        shown = _preview(value) if isinstance(value, str) else cut(repr(value), 60)
        named = " or ".join(f"{owner.__name__}({name}={shown})" for owner in owners)
        if len(owners) == 1:
            raise SettingTypeError(f"{name} is a {owners[0].__name__} setting: "
                                   f"strategy={named}")
        raise SettingTypeError(f"{name} is a setting of "
                               f"{' and '.join(owner.__name__ for owner in owners)}: "
                               f"strategy={named}")


def _owners(name: str) -> list[type[StrategySettings]]:
    """The settings models that have a field `name`."""
    return [strategy.settings_class for strategy in STRATEGIES.values()
            if name != "strategy" and name in strategy.settings_class.model_fields]


def check_concurrency(value: Any) -> None:
    """Refuse a `max_concurrent_requests` that is not a positive int."""
    _check("max_concurrent_requests", value)


def check_seed(seed: Any) -> None:
    """Raise for a seed that is not an int or does not fit in 64 bits."""
    _check("seed", seed)


def check_criteria(criteria: Any) -> None:
    """Raise for a missing or empty criterion."""
    if not isinstance(criteria, str):
        raise SettingTypeError(f"criteria must be a str, got {type(criteria).__name__}")
    if not criteria.strip():
        raise InputError("criteria must not be empty")
    _encodable("criteria", criteria)


def check_items(items: Any) -> list[str]:
    """Return the items as a list, or raise naming the bad ones."""
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise SettingTypeError(f"items must be a list of str, got {type(items).__name__}")
    texts = list(items)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise SettingTypeError(f"items[{index}] is of type {type(text).__name__}, not str: "
                                   f"{text!r}")
        if not text.strip():
            raise InputError(f"items[{index}] is empty")
        _encodable(f"items[{index}]", text)
    seen: dict[str, int] = {}
    for index, text in enumerate(texts):
        if text in seen:
            raise InputError(
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
        raise InputError(
            f"{name} is not valid Unicode text: {exc.reason} at character {exc.start} "
            f"({_preview(text)})"
        ) from None


def _preview(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def check_timeout(seconds: Any) -> None:
    """Refuse a `call_timeout` that is not a positive, finite number of seconds or None."""
    if seconds is None:
        return
    _seconds("call_timeout", seconds, zero=False)


def check_ranking(ranking: Any, native: str) -> Ranking:
    """The ranking to use: the one given, or the strategy's own (`native`) for None.

    "judge" is the strategy's own too, named: the judge's order even in a run with people's
    labels, whose default is their anchored one.
    """
    if ranking == "judge":
        ranking = None
    if native == "pointwise":
        if ranking not in (None, "pointwise"):
            raise InputError(f"ranking={ranking!r} needs pairwise calls: strategy='pointwise' "
                             "ranks by its scores (leave ranking unset)")
        return "pointwise"
    if ranking is None:
        return "wins" if native == "wins" else "bradley_terry"
    if ranking not in ("wins", "bradley_terry"):
        raise InputError(f"ranking must be 'wins' or 'bradley_terry' (or 'judge', the strategy's "
                         f"own), got {ranking!r}")
    if native == "bradley_terry" and ranking == "wins":
        raise InputError("ranking='wins' needs strategy='elimination': Swiss pairs by "
                         "strength, so its win counts are not a ranking")
    rank: Ranking = ranking
    return rank


def check_run_id(run_id: Any) -> str:
    """The run id, or `ValueError` for anything but a non-empty string."""
    if not isinstance(run_id, str) or not run_id.strip():
        raise InputError(f"run_id must be a non-empty str, got {run_id!r}")
    return run_id


# The longest wait or call bound taken, in seconds (about 31 years): a larger number is a
# typo, and past about 1e308 it no longer fits the float every clock works in.
MAX_SECONDS = 10**9


def _seconds(name: str, value: Any, *, zero: bool) -> None:
    """Refuse anything but a finite number of seconds (> 0, or >= 0 with `zero`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingTypeError(f"{name} must be seconds (an int or float) or None, got {value!r}")
    least = ">= 0" if zero else "> 0"
    if not (0 <= value if zero else 0 < value) or not value <= MAX_SECONDS:
        raise InputError(f"{name} must be {least} seconds, at most {MAX_SECONDS} "
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
        raise SettingTypeError("retry_policy must be a langgraph.types.RetryPolicy, got "
                               f"{type(policy).__name__}: {policy!r}")
    _check("retry_policy.max_attempts", policy.max_attempts)
    for name in ("initial_interval", "max_interval"):
        _seconds(f"retry_policy.{name}", getattr(policy, name), zero=True)
    factor = policy.backoff_factor
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 1 <= factor <= 100:
        raise InputError(f"retry_policy.backoff_factor must be a number from 1 to 100, "
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


def check_judge(provider: Any, ties: bool) -> None:
    """Refuse a provider that is not an `LLMProvider`, or `ties` it cannot be offered."""
    if not isinstance(provider, LLMProvider):
        raise SettingTypeError(f"provider must be an LLMProvider, got {type(provider).__name__}")
    if not ties:
        return
    # The panel's judges first: the refusal then names the one that cannot take a tie.
    for judge in [*leaf_judges(provider), provider]:
        if judge.answers(Compare, ties=True):
            continue
        name = type(judge).__name__
        if type(judge).answers is LLMProvider.answers:  # declares nothing: its signature
            raise SettingTypeError(f"ties=True: {name}.compare_call takes no `ties` keyword, "
                                   "so it cannot be offered a tie; add `ties: bool = False`")
        raise SettingTypeError(f"ties=True: {name} cannot be offered a tie (its `answers` "
                               "says so)")


def check_scorer(provider: LLMProvider, settings: StrategySettings) -> None:
    """Refuse a run that scores texts alone with a provider that cannot.

    Pointwise runs and Swiss runs with a pre-pass score texts alone (in batch mode too: a
    pre-pass round's requests are score requests, the later rounds' comparisons).
    """
    prepass = getattr(settings, "prepass", None)  # Swiss's
    if settings.scores_alone:
        what = f"strategy={settings.name!r}"
    elif prepass is not None:
        what = f"prepass={prepass!r}"
    else:
        return
    for judge in [provider, *leaf_judges(provider)]:
        if not judge.answers(Score):
            raise SettingTypeError(f"{what}: {type(judge).__name__} has no score_call, "
                                   "so it cannot score a text alone")


def check_ranker(provider: LLMProvider, settings: StrategySettings) -> None:
    """Refuse a run of ranking calls (Swiss `group_size` > 2) a provider cannot answer.

    Every judge of a panel must answer `Rank` (its `answers` says so). In batch mode the
    provider's batch asks them, by the same rules.
    """
    size = getattr(settings, "group_size", 2)  # Swiss's
    if size <= 2:
        return
    for judge in [provider, *leaf_judges(provider)]:
        if not judge.answers(Rank):
            raise SettingTypeError(f"group_size={size}: {type(judge).__name__} cannot answer a "
                                   "ranking call (its `answers(Rank)` is False); use "
                                   "group_size=2 (pairwise calls) with this judge")


def check_judge_answers(provider: Any, settings: StrategySettings) -> None:
    """Refuse, before any call, a judge that cannot answer what the run will ask.

    A provider that is not an `LLMProvider`, ties it cannot be offered, texts to score alone
    without `score_call`, ranking calls without `rank_call` (each judge of a panel too).
    """
    check_judge(provider, settings.offers_ties)
    check_scorer(provider, settings)
    check_ranker(provider, settings)
