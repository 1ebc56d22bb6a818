"""Ties as a verdict: offered only in runs with `ties=True`, half a win each in the fit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import (
    ComparisonResult,
    Elimination,
    LLMProvider,
    MockLLMProvider,
    PanelProvider,
    QualitativeSorter,
    Swiss,
)
from llm_qualitative_sort.bradley_terry import shown_calls
from llm_qualitative_sort.errors import RunMismatchError, RunStoppedError
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.reports import to_json_dict
from llm_qualitative_sort.reports._json import from_json_dict
from llm_qualitative_sort.stores.cache import FileCache
from llm_qualitative_sort.tournament import match_winner

ITEMS = [str(v) for v in range(0, 300, 10)]


def _mock(seed: int = 1) -> MockLLMProvider:
    return MockLLMProvider(seed=seed, noise_stddev=20.0, tie_margin=15.0)


def _calls(result: SortResult) -> list[Any]:
    return [c.winner for m in result.match_history for c in m.rounds]


def _with_ties(strategy: str) -> Elimination | Swiss:
    """The strategy named `strategy`, with ties offered."""
    return Swiss(ties=True) if strategy == "swiss" else Elimination(ties=True)


async def _sort(judge: LLMProvider, **options: Any) -> SortResult:
    settings: dict[str, Any] = {"criteria": "larger", "seed": 2, "checkpointer": None}
    return await QualitativeSorter(judge, **(settings | options)).sort(ITEMS)


@pytest.mark.parametrize("strategy", ["swiss", "elimination"])
async def test_tied_calls_are_recorded_counted_and_fitted_as_half_wins(strategy: str) -> None:
    result = await _sort(_mock(), strategy=_with_ties(strategy))
    tied = _calls(result).count("tie")
    assert tied > 0
    assert result.statistics.tied_calls == tied
    assert result.statistics.failed_calls == 0  # a tie is a verdict, not a failure
    assert sum(j.tied_calls for j in result.statistics.judges) == tied
    assert result.statistics.judges[0].tie_rate == pytest.approx(tied / len(_calls(result)),
                                                                 abs=1e-6)
    *_, shares = shown_calls(sorted(ITEMS), result.match_history)
    assert list(shares).count(0.5) == tied
    for match in result.match_history:  # a tie never tips a match: half a win each
        assert match.winner == match_winner(c.winner for c in match.rounds)


async def test_elimination_counts_a_match_whose_calls_tie_as_a_draw() -> None:
    class AlwaysTie(LLMProvider):
        async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
            return ComparisonResult("tie", "equal")

        async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                               repetition: int, ties: bool = False) -> ComparisonResult:
            return ComparisonResult("tie", "equal")

    result = await _sort(AlwaysTie(model="tie"), strategy=Elimination(ties=True))
    assert all(m.winner is None for m in result.match_history)
    assert result.statistics.draws == len(result.match_history)
    assert result.statistics.tied_calls == len(_calls(result))
    assert len(result.rankings) == 1  # nobody beat anybody


class _SaysTie(LLMProvider):
    """Answers "tie" to every call, whether or not the run offered one."""

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return ComparisonResult("tie", "they are equal", input_tokens=5)


async def test_a_tie_in_a_run_without_ties_gives_no_verdict_never_a_coin_flip() -> None:
    result = await _sort(_SaysTie(model="t"), strategy=Swiss(budget=20))
    calls = _calls(result)
    assert calls and set(calls) == {None}
    assert result.statistics.failed_calls == len(calls)
    assert result.statistics.tied_calls == 0
    assert all(m.winner is None for m in result.match_history)


async def test_a_provider_that_cannot_take_the_ties_keyword_is_refused_before_any_call() -> None:
    class Old(MockLLMProvider):
        async def compare_call(self, item_a: str, item_b: str, criteria: str, *,  # type: ignore[override]
                               repetition: int) -> ComparisonResult:
            raise AssertionError("no call may be made")

    with pytest.raises(TypeError, match="ties"):
        QualitativeSorter(Old(seed=1), criteria="larger", strategy=Elimination(ties=True),
                          checkpointer=None)
    with pytest.raises(TypeError, match="ties must be a bool"):
        QualitativeSorter(_mock(), criteria="larger", checkpointer=None,
                          strategy=Elimination(ties="yes"))  # type: ignore[arg-type]


async def test_answers_to_a_question_offering_a_tie_are_cached_apart(tmp_path: Path) -> None:
    cache = FileCache(tmp_path / "cache")
    forced = await _sort(_mock(), strategy=Swiss(budget=40), cache=cache)
    assert forced.statistics.cache_hits == 0
    offered = await _sort(_mock(), strategy=Swiss(budget=40, ties=True), cache=cache)
    assert offered.statistics.cache_hits == 0  # another question: none of the forced answers
    again = await _sort(_mock(), strategy=Swiss(budget=40, ties=True), cache=cache)
    assert again.statistics.cache_hits == 40
    assert _calls(again) == _calls(offered) and "tie" in _calls(again)


async def test_a_panel_offers_ties_to_each_judge_and_reports_each_tie_rate() -> None:
    panel = PanelProvider([_mock(1), MockLLMProvider(seed=2, noise_stddev=20.0)], seed=3)
    result = await _sort(panel, strategy=Swiss(budget=60, ties=True))
    rates = {j.judge: j.tied_calls for j in result.statistics.judges}
    assert rates[_mock(1).model_identity] > 0
    assert rates[MockLLMProvider(seed=2, noise_stddev=20.0).model_identity] == 0


class _Breaking(MockLLMProvider):
    """The mock, until `limit` calls have been answered: then every call fails for good."""

    def __init__(self, limit: int) -> None:
        super().__init__(seed=1, noise_stddev=20.0, tie_margin=15.0)
        self.limit = limit

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int, ties: bool = False) -> ComparisonResult:
        if self.calls >= self.limit:
            from llm_qualitative_sort.errors import PermanentProviderError

            raise PermanentProviderError("killed")
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                          ties=ties)


@pytest.mark.parametrize(("strategy", "schedule"), [
    ("swiss", "rounds"), ("elimination", "rounds"), ("elimination", "pipelined")])
async def test_ties_survive_a_stop_and_resume(tmp_path: Path, strategy: str,
                                              schedule: str) -> None:
    whole = await _sort(_mock(), strategy=_with_ties(strategy), schedule=schedule)
    path = str(tmp_path / "runs.db")
    options: dict[str, Any] = {"criteria": "larger", "seed": 2,
                               "strategy": _with_ties(strategy), "checkpointer": path,
                               "schedule": schedule}
    with pytest.raises(RunStoppedError):
        await QualitativeSorter(_Breaking(limit=35), **options).sort(ITEMS, run_id="r")
    with pytest.raises(RunMismatchError, match="ties"):
        await QualitativeSorter(_mock(), **(options | {"strategy": strategy})).resume("r")
    resumed_judge = _mock()
    resumed = await QualitativeSorter(resumed_judge, **options).resume("r")
    assert "tie" in _calls(resumed)
    assert resumed.statistics.tied_calls == _calls(resumed).count("tie")
    assert resumed_judge.calls == len(_calls(resumed)) - 35  # nothing answered is asked again
    if schedule == "rounds":  # pipelined pairings follow completion order, by design
        assert _calls(resumed) == _calls(whole) and resumed.rankings == whole.rankings


async def test_reports_carry_tied_calls() -> None:
    result = await _sort(_mock(), strategy=Swiss(ties=True))
    data = json.loads(json.dumps(to_json_dict(result, settings={"ties": True})))
    assert data["statistics"]["tied_calls"] == result.statistics.tied_calls > 0
    assert data["settings"]["ties"] is True
    again = from_json_dict(data)
    assert _calls(again) == _calls(result)
    assert again.statistics.judges[0].tied_calls == result.statistics.tied_calls


async def test_the_graph_input_takes_ties_as_studio_sends_it() -> None:
    graph = build_graph()
    schema = graph.get_input_jsonschema()
    assert schema["$defs"]["Swiss"]["properties"]["ties"]["type"] == "boolean"
    start = {"items": ITEMS, "criteria": "larger", "seed": 2,
             "settings": {"strategy": "swiss", "ties": True}}
    final = await graph.ainvoke(start, context=TournamentContext(provider=_mock()))
    assert final["statistics"]["tied_calls"] > 0
    off = await build_graph().ainvoke(start | {"settings": {"strategy": "swiss",
                                                            "ties": False}},
                                      context=TournamentContext(provider=_mock()))
    assert off["statistics"]["tied_calls"] == 0 and off["statistics"]["failed_calls"] == 0


async def test_the_html_report_shows_a_tied_call_as_a_tie_and_each_judges_tie_rate() -> None:
    from llm_qualitative_sort.reports import to_html

    result = await _sort(_mock(), strategy=Swiss(ties=True))
    page = to_html(result)
    assert "<b>tie</b>" in page  # never shown as a win of either side
    rate = result.statistics.judges[0].tie_rate
    assert rate is not None and f"({result.statistics.tied_calls:,})" in page
    assert "<th>Ties</th>" in page
    forced = await _sort(_mock(), strategy="swiss")
    assert "<th>Ties</th>" not in to_html(forced) and "<b>tie</b>" not in to_html(forced)
