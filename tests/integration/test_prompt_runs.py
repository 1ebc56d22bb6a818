"""A run's prompt template: checked before any call, cached apart, kept on resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runs import ITEMS, BreaksAfter, _sorter

from llm_qualitative_sort import (
    MemoryCache,
    MockLLMProvider,
    PromptTemplate,
    PromptTemplateError,
    QualitativeSorter,
    RunMismatchError,
    RunStoppedError,
)
from llm_qualitative_sort.prompts._comparison import build_messages

SHOWS = "{{ text_a }}\n{{ text_b }}\n{{ criteria }}"
GRADING = PromptTemplate(system="Rubric: {{ context.rubric }}", user=SHOWS, name="grading")


def test_a_bad_template_or_context_is_refused_when_the_sorter_is_made() -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(PromptTemplateError, match=r"'grading', system part, line 1: .*'rubric'"):
        QualitativeSorter(judge, criteria="c", prompt=GRADING, context={"rubrik": "x"},
                          checkpointer=None)
    with pytest.raises(PromptTemplateError, match="default prompt shows none"):
        QualitativeSorter(judge, criteria="c", context={"rubric": "x"}, checkpointer=None)
    with pytest.raises(TypeError, match="plain JSON"):
        QualitativeSorter(judge, criteria="c", prompt=GRADING, context={"rubric": object()},
                          checkpointer=None)
    with pytest.raises(TypeError, match="PromptTemplate"):
        QualitativeSorter(judge, criteria="c", prompt="{{ text_a }}",  # type: ignore[arg-type]
                          checkpointer=None)
    assert judge.calls == 0


async def _sort(cache: MemoryCache, **options: object) -> int:
    judge = MockLLMProvider(seed=1)
    sorter = QualitativeSorter(judge, criteria="larger", seed=4, cache=cache, checkpointer=None,
                               **options)  # type: ignore[arg-type]
    await sorter.sort(ITEMS)
    return judge.calls


async def test_answers_to_another_prompt_are_cached_apart() -> None:
    cache = MemoryCache()
    assert await _sort(cache) > 0
    # The built-in English template is the default prompt: its answers are the same.
    assert await _sort(cache, prompt=PromptTemplate.builtin("en")) == 0
    assert await _sort(cache, prompt=GRADING, context={"rubric": "size"}) > 0
    assert await _sort(cache, prompt=GRADING, context={"rubric": "size"}) == 0
    assert await _sort(cache, prompt=GRADING, context={"rubric": "weight"}) > 0
    assert await _sort(cache, prompt=PromptTemplate.builtin("ja")) > 0


async def test_the_mock_ranks_the_same_under_any_prompt(tmp_path: Path) -> None:
    plain = await _sorter(MockLLMProvider(seed=1), tmp_path / "a.sqlite3").sort(ITEMS)
    templated = await _sorter(MockLLMProvider(seed=1), tmp_path / "b.sqlite3",
                              prompt=GRADING, context={"rubric": "size"}).sort(ITEMS)
    assert templated.rankings == plain.rankings


async def _stopped_run(tmp_path: Path) -> Path:
    store = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=40), store, prompt=GRADING,
                      context={"rubric": "size"}).sort(ITEMS, run_id="r")
    return store


@pytest.mark.parametrize(("prompt", "context"), [
    (None, None),
    (GRADING, {"rubric": "weight"}),
    (PromptTemplate(system="Rubric: {{ context.rubric }}!", user=SHOWS), {"rubric": "size"}),
])
async def test_resuming_with_another_prompt_is_refused_before_any_call(
    tmp_path: Path, prompt: PromptTemplate | None, context: dict[str, str] | None
) -> None:
    store = await _stopped_run(tmp_path)
    judge = MockLLMProvider(seed=1)
    with pytest.raises(RunMismatchError, match=r"started with the prompt 'grading'"):
        await _sorter(judge, store, prompt=prompt, context=context).resume("r")
    assert judge.calls == 0
    allowed = await _sorter(judge, store, prompt=prompt, context=context,
                            allow_prompt_change=True).resume("r")
    assert judge.calls > 0 and allowed.rankings


async def test_the_same_prompt_resumes(tmp_path: Path) -> None:
    store = await _stopped_run(tmp_path)
    judge = MockLLMProvider(seed=1)
    result = await _sorter(judge, store, prompt=GRADING, context={"rubric": "size"}).resume("r")
    assert judge.calls > 0 and result.statistics.total_api_calls > judge.calls


class Recording(MockLLMProvider):
    """A mock that also builds the messages a real client would send, and keeps them."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.systems: set[str] = set()

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *, repetition: int,
                           ties: bool = False):  # type: ignore[no-untyped-def]
        self.systems.add(build_messages(item_a, item_b, criteria, ties=ties)[0].text)
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                          ties=ties)


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_every_call_of_either_schedule_is_asked_with_the_template(schedule: str) -> None:
    judge = Recording()
    sorter = QualitativeSorter(judge, criteria="larger", seed=2, checkpointer=None,
                               schedule=schedule, prompt=GRADING, context={"rubric": "size"})
    await sorter.sort(ITEMS)
    assert judge.calls > 0 and judge.systems == {"Rubric: size"}


async def _graph_run(judge: Recording, **given: object) -> dict[str, object]:
    from langgraph.checkpoint.memory import InMemorySaver

    from llm_qualitative_sort.graph import TournamentContext, build_graph

    graph = build_graph(InMemorySaver())
    return await graph.ainvoke(  # type: ignore[no-any-return]
        {"items": ITEMS, "criteria": "larger", "seed": 1, **given},
        {"configurable": {"thread_id": "studio"}},
        context=TournamentContext(provider=judge),
    )


async def test_studio_input_takes_a_template_and_context_as_plain_data() -> None:
    judge = Recording()
    state = await _graph_run(judge, prompt=GRADING.to_dict(), context={"rubric": "size"})
    assert judge.systems == {"Rubric: size"} and state["rankings"]
    japanese = Recording()
    await _graph_run(japanese, prompt="builtin:ja")
    assert all("審査員" in system for system in japanese.systems) and japanese.calls > 0


@pytest.mark.parametrize(("given", "message"), [
    ({"prompt": GRADING.to_dict()}, r"'grading', system part, line 1: .*'rubric'"),
    ({"prompt": {"system": "x"}}, r"prompt must be"),
    ({"context": {"rubric": "size"}}, r"default prompt shows none"),
])
async def test_a_bad_studio_template_fails_before_any_call(given: dict[str, object],
                                                           message: str) -> None:
    judge = Recording()
    with pytest.raises((PromptTemplateError, TypeError), match=message):
        await _graph_run(judge, **given)
    assert judge.calls == 0


async def test_the_result_names_the_template_and_its_digest(tmp_path: Path) -> None:
    from llm_qualitative_sort.prompts.setup import PromptSetup

    templated = await _sorter(MockLLMProvider(seed=1), tmp_path / "a.sqlite3", prompt=GRADING,
                              context={"rubric": "size"}).sort(ITEMS)
    digest = PromptSetup(GRADING, {"rubric": "size"}).digest
    assert templated.prompt == f"grading sha256:{digest[:16]}"
    plain = await _sorter(MockLLMProvider(seed=1), tmp_path / "b.sqlite3").sort(ITEMS)
    assert plain.prompt == ""
