"""The offline mock judges any text by default: in Python, in the Studio graph, in the CLI."""

import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult
from llm_qualitative_sort.cli._providers import demo_set, mock_score
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.testing.mock import default_score

# Lengths 3, 12, 27, 45, 70 characters: far apart next to the noise (sd 3.33).
JAPANESE = [
    "吾輩は",
    "吾輩は猫である。名前はまだ無",
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見",
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所",
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャ"
    "ーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間",
]
BY_LENGTH = sorted(JAPANESE, key=len, reverse=True)


def fingerprint(result: SortResult) -> list[Any]:
    history = [(m.item_a, m.item_b, m.winner, m.rounds) for m in result.match_history]
    return [result.rankings, history]


async def test_python_sorts_japanese_texts_with_the_default_mock() -> None:
    judge = MockLLMProvider(seed=1)
    sorter = QualitativeSorter(judge, criteria="より詳しい文章", seed=1, checkpointer=None)
    result = await sorter.sort(JAPANESE)
    assert result.rankings[0] == (1, [BY_LENGTH[0]])
    assert sorted(t for _, group in result.rankings for t in group) == sorted(JAPANESE)
    assert judge.calls == result.statistics.total_api_calls > 0


async def test_the_studio_graph_sorts_japanese_texts_with_no_provider_given() -> None:
    # Plain data, as Studio sends it: the context names no provider, so the mock judges.
    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": "jp"}}
    start = {"items": JAPANESE, "criteria": "より詳しい文章"}
    final = await graph.ainvoke(start, config, context={})
    rankings = final["rankings"]
    assert rankings[0] == (1, [BY_LENGTH[0]])
    assert sorted(t for _, group in rankings for t in group) == sorted(JAPANESE)
    assert json.loads(json.dumps(rankings))  # plain data, as the server sends it


async def test_a_text_the_custom_score_cannot_value_is_refused_before_any_call() -> None:
    scores = {text: float(i) for i, text in enumerate(JAPANESE[:-1])}
    judge = MockLLMProvider(seed=1, score=lambda text: scores[text])
    sorter = QualitativeSorter(judge, criteria="c", seed=1, checkpointer=None)
    with pytest.raises(ValueError, match="cannot score '吾輩は猫である。名前はまだ無い。どこで"):
        await sorter.sort(JAPANESE)
    assert judge.calls == 0


async def test_a_non_finite_custom_score_is_refused_before_any_call(tmp_path: Path) -> None:
    judge = MockLLMProvider(seed=1, score=lambda text: float("nan") if "猫" in text else 1.0)
    sorter = QualitativeSorter(judge, criteria="c", checkpointer=tmp_path / "runs.sqlite3")
    with pytest.raises(ValueError, match="as nan"):
        await sorter.sort(JAPANESE)
    assert judge.calls == 0
    assert not (tmp_path / "runs.sqlite3").exists()  # refused before the run was stored


async def test_the_realistic_judge_gives_one_result_whatever_the_concurrency() -> None:
    items = [str(i) for i in range(40)]

    async def run(concurrency: int) -> SortResult:
        judge = MockLLMProvider.realistic(seed=3, latency=(0.0, 0.002))
        sorter = QualitativeSorter(judge, criteria="larger", seed=5, checkpointer=None,
                                   max_concurrent_requests=concurrency)
        return await sorter.sort(items)

    one, many = await run(1), await run(40)
    assert fingerprint(one) == fingerprint(many)
    assert any(r.winner is None for m in one.match_history for r in m.rounds)  # refusals show


def test_the_cli_mock_values_texts_as_the_library_does_except_the_demo() -> None:
    for text in [*JAPANESE, "42", "-7", "plain text"]:
        assert mock_score(text) == default_score(text)
    for text, hidden in demo_set()["texts"].items():
        assert mock_score(text) == hidden
