"""`verdicts` as a setting of the pairwise strategies: stored, read back by Swiss, kept on resume.

Like `ties`, it is a field of `Elimination` and `Swiss`: a run keeps it in its one settings
object, the Swiss strategy reads it from there, and a resume with the other mode is refused
before any call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import ComparisonResult, MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, main
from llm_qualitative_sort.errors import PermanentProviderError, RunMismatchError, RunStoppedError
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.graph.state import run_strategy

ITEMS = [str(v) for v in range(0, 240, 7)]
OPTIONS: dict[str, Any] = {"criteria": "larger", "seed": 3}


def _swiss(verdicts: str = "hard") -> Swiss:
    return Swiss(budget=90, verdicts=verdicts)  # type: ignore[arg-type]


def _mock() -> MockLLMProvider:
    return MockLLMProvider(seed=1, noise_stddev=25.0, logprobs="calibrated")


class _Breaking(MockLLMProvider):
    """The calibrated mock, failing for good after `limit` calls (a run that stops)."""

    def __init__(self, limit: int) -> None:
        super().__init__(seed=1, noise_stddev=25.0, logprobs="calibrated")
        self.limit = limit

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int, ties: bool = False) -> ComparisonResult:
        if self.calls >= self.limit:
            raise PermanentProviderError("killed")
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                          ties=ties)


async def _stored(saver: InMemorySaver, run_id: str) -> dict[str, Any]:
    state = await build_graph(saver).aget_state({"configurable": {"thread_id": run_id}})
    return dict(state.values)


@pytest.mark.parametrize("verdicts", ["hard", "soft"])
async def test_only_a_soft_run_stores_its_verdicts(verdicts: str) -> None:
    saver = InMemorySaver()
    result = await QualitativeSorter(_mock(), checkpointer=saver, strategy=_swiss(verdicts),
                                     **OPTIONS).sort(ITEMS, run_id="r")
    stored = await _stored(saver, "r")
    assert result.verdicts == verdicts
    # Kept in the run's one settings object, with the strategy's other settings.
    assert stored["settings"]["verdicts"] == verdicts and "verdicts" not in stored
    assert run_strategy(stored).soft is (verdicts == "soft")  # type: ignore[arg-type]


async def test_a_resume_with_the_other_verdicts_is_refused_before_any_call() -> None:
    whole = await QualitativeSorter(_mock(), checkpointer=None, strategy=_swiss("soft"),
                                    **OPTIONS).sort(ITEMS)
    saver = InMemorySaver()
    with pytest.raises(RunStoppedError):
        await QualitativeSorter(_Breaking(limit=40), checkpointer=saver, strategy=_swiss("soft"),
                                **OPTIONS).sort(ITEMS, run_id="r")
    refused = _mock()
    with pytest.raises(RunMismatchError, match="verdicts='soft', not 'hard'"):
        await QualitativeSorter(refused, checkpointer=saver, strategy=_swiss(),
                                **OPTIONS).resume("r")
    assert refused.calls == 0
    resumed = await QualitativeSorter(_mock(), checkpointer=saver, strategy=_swiss("soft"),
                                      **OPTIONS).resume("r")
    assert resumed.verdicts == "soft"
    assert resumed.rankings == whole.rankings


async def test_a_hard_run_refuses_a_soft_resume() -> None:
    saver = InMemorySaver()
    await QualitativeSorter(_mock(), checkpointer=saver, strategy=_swiss(),
                            **OPTIONS).sort(ITEMS, run_id="r")
    with pytest.raises(RunMismatchError, match="verdicts='hard', not 'soft'"):
        await QualitativeSorter(_mock(), checkpointer=saver, strategy=_swiss("soft"),
                                **OPTIONS).resume("r")


async def test_the_graph_input_takes_verdicts_as_studio_sends_it() -> None:
    graph = build_graph()
    schema = graph.get_input_jsonschema()
    assert "verdicts" in schema["$defs"]["Swiss"]["properties"]
    start = {"items": ITEMS, "criteria": "larger", "seed": 3}
    swiss = {"strategy": "swiss", "budget": 90}
    hard = await graph.ainvoke(start | {"settings": swiss},
                               context=TournamentContext(provider=_mock()))
    soft = await build_graph().ainvoke(start | {"settings": swiss | {"verdicts": "soft"}},
                                       context=TournamentContext(provider=_mock()))
    assert soft["rankings"] != hard["rankings"]  # the Swiss fits read the probabilities
    with pytest.raises(ValueError, match="verdicts"):
        await build_graph().ainvoke(start | {"settings": swiss | {"verdicts": "fuzzy"}},
                                    context=TournamentContext(provider=_mock()))


def test_the_command_line_keeps_soft_verdicts_on_resume_and_lists_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "items.txt").write_text("\n".join(ITEMS), encoding="utf-8")
    runs = str(tmp_path / "runs.db")

    def sort(*args: str) -> int:
        return main(["sort", str(tmp_path / "items.txt"), "--criteria", "larger", "--seed",
                     "1", "--strategy", "swiss", "--progress", "none", "--checkpoint", runs,
                     *args])

    original = MockLLMProvider.compare_call

    async def breaking(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        if self.calls >= 20:
            raise PermanentProviderError("killed")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", breaking)
    assert sort("--verdicts", "soft", "--run-id", "cut") == EXIT_STOPPED
    assert sort("--run-id", "plain") == EXIT_STOPPED
    monkeypatch.setattr(MockLLMProvider, "compare_call", original)
    assert main(["sort", "--resume", "cut", "--progress", "none", "--checkpoint", runs,
                 "--out", str(tmp_path / "cut.json")]) == EXIT_OK
    report = json.loads((tmp_path / "cut.json").read_text("utf-8"))
    assert report["settings"]["verdicts"] == "soft"
    capsys.readouterr()
    assert main(["runs", "list", "--checkpoint", runs]) == EXIT_OK
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()
              if line.startswith(("cut", "plain"))}
    assert " soft-verdicts " in listed["cut"] and "soft-verdicts" not in listed["plain"]
