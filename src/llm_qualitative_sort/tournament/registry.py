"""The strategies by name, each with its settings model; a run's stored settings read back.

Adding a strategy is one folder beside `elimination/`, `swiss/` and `pointwise/` (its
`StrategySettings` subclass and its `Strategy`) and one entry in `STRATEGIES` and in
`StrategyChoice`. `labelled/` (the labelled pairs a calibration asks) is playable
(`PLAYABLE`) but not offered: not in `STRATEGIES`, the choices of `--strategy` or Studio.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.tournament.base import Strategy
from llm_qualitative_sort.tournament.elimination import Elimination, EliminationStrategy
from llm_qualitative_sort.tournament.labelled import LabelledStrategy
from llm_qualitative_sort.tournament.pointwise import Pointwise, PointwiseStrategy
from llm_qualitative_sort.tournament.settings import PairwiseSettings, StrategySettings
from llm_qualitative_sort.tournament.swiss import Swiss, SwissStrategy

STRATEGIES: dict[str, type[Strategy[Any]]] = {
    s.name: s for s in (EliminationStrategy, SwissStrategy, PointwiseStrategy)}
# Strategies a run can play but no one ranks with: the labelled pairs a calibration asks.
# A run stores their settings like any other's, so they read back by name too.
PLAYABLE: dict[str, type[Strategy[Any]]] = {**STRATEGIES, LabelledStrategy.name: LabelledStrategy}

# A strategy's settings as plain data, told apart by their "strategy" (Studio's input).
StrategyChoice = Annotated[Elimination | Swiss | Pointwise, Field(discriminator="strategy")]


def strategy_class(settings: StrategySettings | type[StrategySettings]) -> type[Strategy[Any]]:
    """The strategy that plays `settings` (the strategy of the same name)."""
    return PLAYABLE[settings.name]


def settings_class(name: Any) -> type[StrategySettings]:
    """The settings model of the strategy `name`; `InputError` for an unknown one."""
    if not isinstance(name, str) or name not in PLAYABLE:
        raise InputError(f"strategy must be one of {', '.join(map(repr, STRATEGIES))} or "
                         f"a settings object, got {name!r}")
    return PLAYABLE[name].settings_class


def scores_alone(name: Any) -> bool:
    """Whether the strategy `name` scores each text alone (False for no strategy's name).

    Example:
        >>> scores_alone("pointwise"), scores_alone("swiss"), scores_alone("chess")
        (True, False, False)
    """
    return isinstance(name, str) and name in STRATEGIES and settings_class(name).scores_alone


def parse_settings(given: Any) -> StrategySettings:
    """The settings `given` names: a settings object, a strategy's name, or its plain data.

    Plain data is a `StrategySettings.stored()` mapping: "strategy" and the fields.

    Example:
        >>> parse_settings({"strategy": "swiss", "budget": 40}) == Swiss(budget=40)
        True
        >>> parse_settings("pointwise")
        Pointwise(scale='1-4 (default labels)', inverse=False, repetitions=1)
    """
    if isinstance(given, StrategySettings):
        return given
    if isinstance(given, str):
        return settings_class(given)()
    if not isinstance(given, Mapping):
        raise SettingTypeError(f"strategy must be a strategy's name, its settings object or "
                               f"their plain data, got {type(given).__name__}")
    if "strategy" not in given:
        raise InputError(f'the settings {dict(given)!r} name no "strategy": one of '
                         f"{', '.join(map(repr, STRATEGIES))}")
    return settings_class(given["strategy"]).parse(given)


def strategy_for(settings: StrategySettings, n_items: int, seed: int) -> Strategy[Any]:
    """The strategy that plays `settings` among `n_items` items with `seed`.

    Example:
        >>> strategy_for(Swiss(top_k=3), n_items=8, seed=1).name
        'swiss'
    """
    return strategy_class(settings)(settings, n_items, seed, soft=settings.soft_verdicts)


def setting_names() -> list[str]:
    """The fields of every strategy's settings, each once, in order (not "strategy")."""
    names: dict[str, None] = {}
    for strategy in STRATEGIES.values():
        names.update(dict.fromkeys(strategy.settings_class.model_fields))
    names.pop("strategy", None)
    return list(names)


def settings_from_state(state: Mapping[str, Any]) -> StrategySettings:
    """The settings a run's state holds: its "settings", or a run stored by an earlier version.

    Earlier versions stored each setting as a key of its own ("strategy": "swiss",
    "budget": 40, ..., "ties" only when on): those keys are read once into the settings
    object. A run that names no strategy is elimination's; one stored before the calls per
    match were recorded played two.

    Example:
        >>> settings_from_state({"settings": {"strategy": "swiss", "top_k": 3}})
        Swiss(comparison_rounds=1, ties=False, verdicts='hard', budget=None, \
budget_tokens=None, top_k=3, stop_when_settled=False, prepass=None, group_size=2, \
pairing='neighbours')
        >>> settings_from_state({"elimination_count": 1})
        Elimination(comparison_rounds=2, ties=False, verdicts='hard', elimination_count=1)
    """
    if state.get("settings") is not None:
        return parse_settings(state["settings"])
    chosen = settings_class(state.get("strategy") or "elimination")
    values = {name: state[name] for name in chosen.model_fields
              if name != "strategy" and state.get(name) is not None}
    if issubclass(chosen, PairwiseSettings):
        values.setdefault("comparison_rounds", 2)
    return chosen(**values)


def shown_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` (a run's flat settings) without the keys of strategies it does not play.

    Unchanged when it names no strategy it knows (a mapping a user gave a report, say).

    Example:
        >>> shown_settings({"criteria": "c", "strategy": "swiss", "elimination_count": 2,
        ...                 "budget": 10})
        {'criteria': 'c', 'strategy': 'swiss', 'budget': 10}
    """
    name = settings.get("strategy")
    if not isinstance(name, str) or name not in STRATEGIES:
        return dict(settings)
    foreign = set(setting_names()) - set(STRATEGIES[name].settings_class.model_fields)
    return {key: value for key, value in settings.items() if key not in foreign}
