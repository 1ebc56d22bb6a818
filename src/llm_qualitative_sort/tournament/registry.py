"""The strategies by name, each with its settings class; flat keywords to a settings object.

Adding a strategy is one folder beside `elimination/`, `swiss/` and `pointwise/` (its
`StrategySettings` subclass and its `Strategy`) and one entry in `STRATEGIES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llm_qualitative_sort.tournament.base import Strategy
from llm_qualitative_sort.tournament.elimination import EliminationStrategy
from llm_qualitative_sort.tournament.pointwise import PointwiseStrategy
from llm_qualitative_sort.tournament.settings import StrategySettings
from llm_qualitative_sort.tournament.swiss import SwissStrategy

STRATEGIES: dict[str, type[Strategy[Any]]] = {
    s.name: s for s in (EliminationStrategy, SwissStrategy, PointwiseStrategy)}


def strategy_class(settings: StrategySettings | type[StrategySettings]) -> type[Strategy[Any]]:
    """The strategy that plays `settings` (the strategy of the same name)."""
    return STRATEGIES[settings.name]


def settings_class(name: str) -> type[StrategySettings]:
    """The settings class of the strategy `name`; `ValueError` for an unknown one."""
    if name not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(map(repr, STRATEGIES))} or "
                         f"a settings object, got {name!r}")
    return STRATEGIES[name].settings_class


def strategy_for(settings: StrategySettings, n_items: int, seed: int, *,
                 soft: bool = False) -> Strategy[Any]:
    """The strategy that plays `settings` among `n_items` items with `seed`.

    Example:
        >>> from llm_qualitative_sort.tournament.swiss import Swiss
        >>> strategy_for(Swiss(top_k=3), n_items=8, seed=1).name
        'swiss'
    """
    return strategy_class(settings)(settings, n_items, seed, soft=soft)


def flat_keywords() -> list[str]:
    """Every strategy's flat keywords (the sorter's, the state's), each once, in order."""
    names: dict[str, None] = {}
    for strategy in STRATEGIES.values():
        names.update(dict.fromkeys(strategy.settings_class.keywords()))
    return list(names)


def settings_from_state(state: Mapping[str, Any]) -> StrategySettings:
    """The settings a stored run (or a run's state) holds; elimination if it names none."""
    return settings_class(state.get("strategy") or "elimination").from_state(state)


def shown_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """`settings` (a stored run's flat keys) without the keys of strategies it does not play.

    Unchanged when it names no strategy it knows (a mapping a user gave a report, say).

    Example:
        >>> shown_settings({"criteria": "c", "strategy": "swiss", "elimination_count": 2,
        ...                 "budget": 10})
        {'criteria': 'c', 'strategy': 'swiss', 'budget': 10}
    """
    name = settings.get("strategy")
    if not isinstance(name, str) or name not in STRATEGIES:
        return dict(settings)
    own = set(STRATEGIES[name].settings_class.owned_keys())
    foreign = set(flat_keywords()) - own
    return {key: value for key, value in settings.items() if key not in foreign}
