"""Every run setting of `QualitativeSorter` is offered by the command line and by Studio.

The settings are walked from the signature, and each strategy's own settings from the
fields of its settings model (`Elimination`, `Swiss`, `Pointwise`), so a new one fails here
until both front ends offer it (or it is listed below as Python-only, with the reason).
Studio sends a strategy's settings as one object, its `settings` input.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.cli import main
from llm_qualitative_sort.cli._parser import build_parser
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.providers.registry import NAMED_PROVIDERS
from llm_qualitative_sort.tournament import STRATEGIES, StrategySettings, setting_names

# Parameters that are not a run setting, or that a front end gives in its own way. Each is
# (the command line's flag, the Studio context's key, why); None where a front end has none.
NOT_RUN_SETTINGS: dict[str, tuple[str | None, str | None, str]] = {
    # An object: named by the CLI (--provider, --model, --judge) and Studio's context.
    "provider": ("--provider", "provider", "the judge, built from its name"),
    # How calls are made, not what the run is: the CLI's flag, Studio's run context.
    "max_concurrent_requests": ("--concurrency", "max_concurrent_requests", "calls in flight"),
    # Studio's context has the bound; the CLI's --timeout bounds each request of the client
    # instead (the sorter's own bound then stays at its default, above the client's).
    "call_timeout": (None, "call_timeout", "the bound of one call"),
    # Objects: the CLI builds the cache from --cache-dir; the API server has no cache.
    "cache": ("--cache-dir", None, "answers reused across runs"),
    # A callback: the CLI shows progress itself; Studio streams the graph's events.
    "on_progress": (None, None, "a Python callable"),
    # Where runs are kept: the API server attaches its own persistence to every graph.
    "checkpointer": ("--checkpoint", None, "the store of the runs"),
    # A LangGraph object; the CLI keeps the default policy (and shows the retries).
    "retry_policy": (None, None, "a Python object"),
    # The API server holds its own threads: only one process ever plays a run there.
    "wait_for_run": ("--wait", None, "waiting for another process"),
    # Python-only on purpose: the CLI refuses another judge on resume (a mixed ranking is
    # a choice a script makes explicitly), and Studio's threads keep one context.
    "allow_judge_change": (None, None, "resuming with another judge"),
    # Likewise: the CLI refuses a changed --prompt or --context on resume.
    "allow_prompt_change": (None, None, "resuming with another prompt"),
}


def _sorter_parameters() -> list[str]:
    signature = inspect.signature(QualitativeSorter.__init__)
    return [name for name in signature.parameters if name != "self"]


def _run_settings() -> list[str]:
    """The sorter's run settings, but for the strategies' own (walked from their models).

    `elimination_count` and `comparison_rounds` are shorthands for the chosen strategy's
    fields, and `**moved` (the refusal of a strategy's setting given on its own) is none.
    """
    return [name for name in _sorter_parameters()
            if name not in NOT_RUN_SETTINGS and name not in setting_names()
            and name != "moved"]


def _strategy_fields() -> list[tuple[str, str]]:
    """(strategy, field) for every field of every strategy's settings model."""
    return [(name, field) for name, strategy in STRATEGIES.items()
            for field in strategy.settings_class.model_fields if field != "strategy"]


# Studio's input key of a run setting whose name there differs (one object, not a name).
STUDIO_KEYS = {"strategy": "settings"}


# A value other than the default of each strategy setting, with what it needs beside it: a
# new field fails here until it has one (and so is tested through every front end).
SAMPLES: dict[tuple[str, str], dict[str, Any]] = {
    ("elimination", "elimination_count"): {"elimination_count": 3},
    ("elimination", "comparison_rounds"): {"comparison_rounds": 4},
    ("elimination", "ties"): {"ties": True},
    ("elimination", "verdicts"): {"verdicts": "soft"},
    ("swiss", "budget"): {"budget": 30},
    # About 17 calls at the 13 short texts' estimate (453 tokens each, mostly the prompt).
    ("swiss", "budget_tokens"): {"budget_tokens": 8000},
    ("swiss", "top_k"): {"top_k": 2},
    ("swiss", "stop_when_settled"): {"stop_when_settled": True, "top_k": 2},
    ("swiss", "comparison_rounds"): {"comparison_rounds": 2},
    ("swiss", "ties"): {"ties": True},
    ("swiss", "verdicts"): {"verdicts": "soft"},
    ("swiss", "prepass"): {"prepass": "pointwise"},
    ("swiss", "group_size"): {"group_size": 4},
    ("swiss", "pairing"): {"pairing": "a-optimal"},
    ("pointwise", "scale"): {"scale": "0-5"},
    ("pointwise", "inverse"): {"inverse": True},
    ("pointwise", "repetitions"): {"repetitions": 2},
}


def _sort_flags() -> set[str]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sort = commands.choices["sort"]
    return {option for action in sort._actions for option in action.option_strings}


def test_the_exceptions_are_parameters_of_the_sorter() -> None:
    # A renamed or removed parameter must not linger here and hide a new one.
    assert set(NOT_RUN_SETTINGS) <= set(_sorter_parameters())
    assert {"strategy", "seed", "ranking", "schedule", "criteria"} <= set(_run_settings())


@pytest.mark.parametrize("name", _run_settings())
def test_the_command_line_has_a_flag_for_every_run_setting(name: str) -> None:
    assert "--" + name.replace("_", "-") in _sort_flags()


@pytest.mark.parametrize("name", _run_settings())
def test_the_studio_input_has_a_key_for_every_run_setting(name: str) -> None:
    assert STUDIO_KEYS.get(name, name) in build_graph().get_input_jsonschema()["properties"]


@pytest.mark.parametrize(("strategy", "field"), _strategy_fields())
def test_every_strategy_setting_is_a_flag_and_a_field_of_studios_settings(
    strategy: str, field: str
) -> None:
    assert "--" + field.replace("_", "-") in _sort_flags()
    schema = build_graph().get_input_jsonschema()
    model = STRATEGIES[strategy].settings_class.__name__
    assert field in schema["$defs"][model]["properties"]
    assert {"$ref": f"#/$defs/{model}"} in schema["properties"]["settings"]["oneOf"]


def test_no_strategy_setting_is_a_sorter_keyword_of_its_own() -> None:
    # But the two shorthands for the chosen strategy's fields, which `strategy` names.
    assert set(setting_names()) & set(_sorter_parameters()) == {
        "elimination_count", "comparison_rounds"}


def _argv(values: dict[str, Any], strategy: str) -> list[str]:
    argv = []
    for field, value in values.items():
        flag = "--" + field.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return argv


def _cli_strategy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Any:
    """The `strategy=` the command line gives the sorter for `extra` flags."""
    given: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def capture(provider: Any, **kwargs: Any) -> None:
        given.update(kwargs)
        raise Stop

    monkeypatch.setattr("llm_qualitative_sort.cli._run.QualitativeSorter", capture)
    (tmp_path / "a.txt").write_text("1\n2\n3\n4\n", encoding="utf-8")
    main(["sort", str(tmp_path / "a.txt"), "--criteria", "larger", "--progress", "none",
          "--checkpoint", str(tmp_path / "r.db"), *extra])
    return given["strategy"]


@pytest.mark.parametrize(("strategy", "field"), _strategy_fields())
def test_the_command_line_builds_each_strategy_setting_into_its_settings_object(
    strategy: str, field: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = SAMPLES[(strategy, field)]
    made = _cli_strategy(tmp_path, monkeypatch, "--strategy", strategy,
                         *_argv(values, strategy))
    assert made == STRATEGIES[strategy].settings_class(**values)
    assert getattr(made, field) != getattr(STRATEGIES[strategy].settings_class(), field)


@pytest.mark.parametrize(("strategy", "field"), _strategy_fields())
async def test_studio_reads_each_strategy_setting_as_the_sorter_does(
    strategy: str, field: str
) -> None:
    values = SAMPLES[(strategy, field)]
    settings = STRATEGIES[strategy].settings_class(**values)
    sorter = QualitativeSorter(MockLLMProvider(seed=3), criteria="larger", seed=3,
                               strategy=settings, checkpointer=None)
    result = await sorter.sort(ITEMS)
    graph = await _graph_rankings(settings={"strategy": strategy, **values},
                                  ranking=sorter.ranking)
    assert [(rank, list(group)) for rank, group in graph] == result.rankings


@pytest.mark.parametrize("name", sorted(NOT_RUN_SETTINGS))
def test_the_front_ends_offer_what_the_exceptions_say(name: str) -> None:
    flag, context_key, _why = NOT_RUN_SETTINGS[name]
    if flag is not None:
        assert flag in _sort_flags()
    if context_key is not None:
        assert context_key in TournamentContext.__dataclass_fields__
        context = build_graph().get_context_jsonschema()
        assert context is not None and context_key in context["properties"]


def test_the_command_line_passes_every_run_setting_to_the_sorter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def capture(provider: Any, **kwargs: Any) -> None:
        given.update(kwargs)
        raise Stop

    monkeypatch.setattr("llm_qualitative_sort.cli._run.QualitativeSorter", capture)
    (tmp_path / "a.txt").write_text("1\n2\n3\n", encoding="utf-8")
    # The command reports the stop as an error of its own; the arguments are what counts.
    main(["sort", str(tmp_path / "a.txt"), "--criteria", "larger", "--progress", "none",
          "--checkpoint", str(tmp_path / "r.db")])
    assert given and set(_run_settings()) <= set(given)
    # The strategies' own settings come as one settings object (see the tests above).
    assert isinstance(given["strategy"], StrategySettings)
    assert not set(setting_names()) & set(given)


def test_studio_names_the_registrys_providers() -> None:
    context = build_graph().get_context_jsonschema()
    assert context is not None
    assert tuple(context["properties"]["provider"]["enum"]) == NAMED_PROVIDERS


ITEMS = [str(n) for n in range(1, 14)]


async def _graph_rankings(**given: Any) -> Any:
    graph = build_graph(InMemorySaver())
    state = await graph.ainvoke({"items": ITEMS, "criteria": "larger", "seed": 3, **given},
                                {"configurable": {"thread_id": "t"}})
    return state["rankings"]


@pytest.mark.parametrize("strategy", ["elimination", "swiss"])
async def test_studios_ranking_is_the_sorters(strategy: str) -> None:
    # The same seeded mock judge (Studio's default) as the sorter's: the same calls.
    sorter = QualitativeSorter(MockLLMProvider(seed=3), criteria="larger", seed=3,
                               strategy=strategy, ranking="bradley_terry", checkpointer=None)
    result = await sorter.sort(ITEMS)
    graph = await _graph_rankings(settings={"strategy": strategy}, ranking="bradley_terry")
    assert [(rank, list(group)) for rank, group in graph] == result.rankings


async def test_studios_ranking_by_wins_is_the_default_for_elimination() -> None:
    by_wins = await _graph_rankings(ranking="wins")
    assert by_wins == await _graph_rankings()
    assert by_wins != await _graph_rankings(ranking="bradley_terry")


@pytest.mark.parametrize(
    ("given", "message"),
    [({"ranking": "wins", "settings": {"strategy": "swiss"}}, "needs strategy='elimination'"),
     ({"ranking": "elo"}, "ranking must be 'wins' or 'bradley_terry'")],
)
def test_a_bad_studio_ranking_is_refused_before_any_call(
    given: dict[str, Any], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_call(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a call was made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", no_call)
    with pytest.raises(ValueError, match=message):
        asyncio.run(_graph_rankings(**given))
