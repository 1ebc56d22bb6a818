"""Runs whose items carry fields: shown to the judge, cached per pair, kept on resume."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

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
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.prompts._comparison import build_messages

SOURCED = PromptTemplate(
    system="Judge.",
    user="{{ text_a }}\nSource of A: {{ fields_a.source }}\n{{ text_b }}\n"
         "Source of B: {{ fields_b.source }}",
    name="sourced")
FIELDS = [{"source": f"book {text}", "page": int(text)} for text in ITEMS]


class Recording(MockLLMProvider):
    """A mock that also builds the messages a real client would send, and keeps them."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.users: list[str] = []

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *, repetition: int,
                           ties: bool = False) -> ComparisonResult:
        self.users.append(build_messages(item_a, item_b, criteria, ties=ties)[1].text)
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition,
                                          ties=ties)


def _shown_sources(user: str) -> tuple[str, str, str, str]:
    """Text A, the source shown with A, text B, the source shown with B."""
    found = re.findall(r"<<<BEGIN (?:TEXT|FIELD) [AB.a-z]+ \w+>>>\n(.*?)\n<<<END", user)
    assert len(found) == 4, user
    return found[0], found[1], found[2], found[3]


@pytest.mark.parametrize("schedule", ["rounds", "pipelined"])
async def test_every_call_shows_the_fields_of_its_own_two_texts(schedule: str) -> None:
    judge = Recording()
    sorter = QualitativeSorter(judge, criteria="larger", seed=2, checkpointer=None,
                               schedule=schedule, prompt=SOURCED)
    result = await sorter.sort(ITEMS, fields=FIELDS)
    assert judge.calls == len(judge.users) > 0
    for user in judge.users:
        text_a, source_a, text_b, source_b = _shown_sources(user)
        assert (source_a, source_b) == (f"book {text_a}", f"book {text_b}")
    if schedule == "pipelined":
        return  # its pairings follow the order answers arrive: not comparable run to run
    # The mock never reads the prompt: fields change no ranking nor call.
    plain = MockLLMProvider(seed=1)
    again = await QualitativeSorter(plain, criteria="larger", seed=2, checkpointer=None,
                                    schedule=schedule).sort(ITEMS)
    assert again.rankings == result.rankings and plain.calls == judge.calls


async def test_fields_are_checked_before_any_call() -> None:
    judge = Recording()
    sorter = QualitativeSorter(judge, criteria="larger", seed=2, checkpointer=None,
                               prompt=SOURCED)
    with pytest.raises(PromptTemplateError, match=r"'sourced', user part, line 2: shows "
                                                  r"\{\{ fields_a.source \}\} but the items "
                                                  r"carry no fields"):
        await sorter.sort(ITEMS)
    lacking: list[dict[str, Any]] = [*FIELDS[:3], {"page": 9}, *FIELDS[4:]]
    with pytest.raises(PromptTemplateError, match=r"line 2: .* item items\[3\] has no field "
                                                  r"'source' \(its fields: page\)"):
        await sorter.sort(ITEMS, fields=lacking)
    plain = QualitativeSorter(judge, criteria="larger", checkpointer=None)
    with pytest.raises(PromptTemplateError, match="fields are given but the prompt template "
                                                  "'builtin:en' shows none"):
        await plain.sort(ITEMS, fields=FIELDS)
    assert judge.calls == 0


async def _sorted(cache: MemoryCache, fields: list[dict[str, Any]]) -> int:
    judge = MockLLMProvider(seed=1)
    sorter = QualitativeSorter(judge, criteria="larger", seed=4, cache=cache, checkpointer=None,
                               prompt=SOURCED)
    await sorter.sort(ITEMS, fields=fields)
    return judge.calls


async def test_the_fields_shown_are_part_of_each_calls_cache_key() -> None:
    cache = MemoryCache()
    first = await _sorted(cache, FIELDS)
    assert first > 0
    # A key the template does not show asks the same question.
    assert await _sorted(cache, [{**f, "page": 0} for f in FIELDS]) == 0
    # Another source for one item: only its calls are asked again.
    changed = [dict(f) for f in FIELDS]
    changed[5]["source"] = "another book"
    again = await _sorted(cache, changed)
    assert 0 < again < first


async def _stopped_run(tmp_path: Path) -> Path:
    store = tmp_path / "runs.sqlite3"
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=40), store, prompt=SOURCED).sort(ITEMS, run_id="r",
                                                                          fields=FIELDS)
    return store


async def test_a_run_with_other_fields_is_refused_before_any_call(tmp_path: Path) -> None:
    store = await _stopped_run(tmp_path)
    changed = [dict(f) for f in FIELDS]
    changed[7]["source"] = "another book"
    judge = Recording()
    with pytest.raises(RunMismatchError, match=r"run 'r' was started with other item fields: "
                                               r"item '21' was shown with \{'source': 'book 21'"):
        await _sorter(judge, store, prompt=SOURCED).sort(ITEMS, run_id="r", fields=changed)
    assert judge.calls == 0
    # The same fields in another order of the items: the same run, which goes on.
    order = list(reversed(range(len(ITEMS))))
    result = await _sorter(judge, store, prompt=SOURCED).sort(
        [ITEMS[i] for i in order], run_id="r", fields=[FIELDS[i] for i in order])
    assert judge.calls > 0 and result.rankings


async def test_resume_shows_the_fields_the_run_stored(tmp_path: Path) -> None:
    store = await _stopped_run(tmp_path)
    judge = Recording()
    result = await _sorter(judge, store, prompt=SOURCED).resume("r")
    assert judge.calls > 0 and result.rankings
    for user in judge.users:
        text_a, source_a, _, _ = _shown_sources(user)
        assert source_a == f"book {text_a}"
    other = PromptTemplate(system="Judge.", user="{{ text_a }}\n{{ text_b }}")
    with pytest.raises(RunMismatchError, match="started with the prompt 'sourced'"):
        await _sorter(Recording(), store, prompt=other).resume("r")


async def _graph_run(judge: MockLLMProvider, **given: object) -> dict[str, object]:
    from langgraph.checkpoint.memory import InMemorySaver

    from llm_qualitative_sort.graph import TournamentContext, build_graph

    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": "studio"}}
    start: Any = {"items": list(reversed(ITEMS)), "criteria": "larger", "seed": 1, **given}
    output = await graph.ainvoke(start, config, context=TournamentContext(provider=judge))
    return {**output, "state": (await graph.aget_state(config)).values}


async def test_studio_input_takes_fields_parallel_to_the_items() -> None:
    judge = Recording()
    state = await _graph_run(judge, prompt=SOURCED.to_dict(), fields=list(reversed(FIELDS)))
    assert state["rankings"] and judge.users
    for user in judge.users:
        text_a, source_a, text_b, source_b = _shown_sources(user)
        assert (source_a, source_b) == (f"book {text_a}", f"book {text_b}")
    # Kept in the items' canonical order, with only the fields the template shows.
    stored: Any = state["state"]
    assert stored["fields"] == [{"source": f"book {text}"} for text in stored["items"]]
    assert stored["items"] == sorted(ITEMS)


@pytest.mark.parametrize(("given", "message"), [
    ({"prompt": SOURCED.to_dict()}, r"'sourced', user part, line 2: .*carry no fields"),
    ({"prompt": SOURCED.to_dict(), "fields": [{"source": "x"}]}, r"fields has 1 entry"),
    ({"fields": FIELDS}, r"shows none of them"),
])
async def test_bad_studio_fields_fail_before_any_call(given: dict[str, object],
                                                      message: str) -> None:
    judge = Recording()
    with pytest.raises((PromptTemplateError, ValueError), match=message):
        await _graph_run(judge, **given)
    assert judge.calls == 0


async def test_a_run_stored_without_fields_resumes_as_before_and_needs_them_to_show_any(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.sqlite3"
    plain = PromptTemplate(system="Judge.", user="{{ text_a }}\n{{ text_b }}", name="plain")
    with pytest.raises(RunStoppedError):
        await _sorter(BreaksAfter(limit=40), store, prompt=plain).sort(ITEMS, run_id="r")
    judge = Recording()
    with pytest.raises(PromptTemplateError, match="'sourced', user part, line 2: .*carry no "
                                                  "fields"):
        await _sorter(judge, store, prompt=SOURCED, allow_prompt_change=True).resume("r")
    assert judge.calls == 0
    result = await _sorter(judge, store, prompt=plain).resume("r")
    assert judge.calls > 0 and result.rankings


async def test_a_fields_template_in_a_new_process_first_run_is_not_stopped() -> None:
    # The token estimate measures the built-in prompt once per process; measured inside a
    # first run whose template shows fields, it rendered that template for empty texts,
    # which have none, and stopped the run at its first call.
    from llm_qualitative_sort.providers import _tokens

    _tokens._prompt_chars.cache_clear()
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=2,
                               checkpointer=None, prompt=SOURCED)
    result = await sorter.sort(ITEMS, fields=FIELDS)
    assert result.statistics.failed_calls == 0 and len(result.rankings) > 1
    assert _tokens._prompt_chars() == sum(
        len(str(m.content)) for m in build_messages("", "", ""))  # the built-in prompt's
