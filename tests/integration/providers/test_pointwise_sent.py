"""Pointwise calls through the real clients: the label, its reason, its log-probabilities."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from _fakes import FakeJudge
from _setup import make_provider

from llm_qualitative_sort import Pointwise, QualitativeSorter, Scale
from llm_qualitative_sort.providers.langchain import LangChainProvider

LABELS = {"1": math.log(0.05), "2": math.log(0.15), "3": math.log(0.5), "4": math.log(0.25)}


def expected(labels: dict[str, float]) -> float:
    """S = sum k softmax(z)_k over the labels the server sent."""
    total = sum(math.exp(z) for z in labels.values())
    return sum(int(k) * math.exp(z) / total for k, z in labels.items())


def score(provider: LangChainProvider, text: str, inverse: bool = False):  # type: ignore[no-untyped-def]
    return asyncio.run(provider.score_call(text, "clarity", scale=Scale.parse(None),
                                           inverse=inverse))


@pytest.mark.parametrize("kind", ["openai", "langchain"])
def test_the_label_tokens_log_probabilities_give_the_expected_label(
    kind: str, openai_judge: tuple[FakeJudge, str], items: list[str]
) -> None:
    judge, url = openai_judge
    judge.logprobs = LABELS
    provider = make_provider(kind, url)
    assert isinstance(provider, LangChainProvider)
    result = score(provider, items[0])
    assert result.label == judge.score(items[0])["label"]
    assert result.reason.startswith("It deserves")
    assert result.expected == pytest.approx(expected(LABELS), abs=1e-9)
    assert result.raw_response["label_logprobs"]["3"] == pytest.approx(LABELS["3"])
    sent = judge.seen[-1].body
    assert sent["logprobs"] is True
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["label"]["enum"] == [1, 2, 3, 4]


def test_gemini_scores_a_text_alone(gemini_judge: tuple[FakeJudge, str],
                                    items: list[str]) -> None:
    judge, url = gemini_judge
    result = score(make_provider("google", url), items[0])  # type: ignore[arg-type]
    assert result.label == judge.score(items[0])["label"] and result.reason


def test_without_log_probabilities_the_label_itself_counts(
    openai_judge: tuple[FakeJudge, str], items: list[str]
) -> None:
    judge, url = openai_judge
    result = score(make_provider("openai", url), items[-1])  # type: ignore[arg-type]
    assert result.distribution is None and result.expected == float(result.label)


def test_the_inverse_question_is_asked(openai_judge: tuple[FakeJudge, str],
                                       items: list[str]) -> None:
    judge, url = openai_judge
    score(make_provider("openai", url), items[0], inverse=True)  # type: ignore[arg-type]
    prompt = str(judge.seen[-1].body["messages"])
    assert "how far the text is from meeting the criterion" in prompt.lower()
    assert "Very far" in prompt


def test_a_pointwise_sort_through_openai_keeps_reasons_and_distributions(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path
) -> None:
    judge, url = openai_judge
    judge.logprobs = LABELS
    sorter = QualitativeSorter(make_provider("openai", url), criteria="clarity",
                               strategy=Pointwise(repetitions=2), seed=1,
                               checkpointer=tmp_path / "runs.sqlite3")
    result = asyncio.run(sorter.sort(items[:6]))
    assert len(judge.seen) == 12 == result.statistics.total_api_calls
    calls = [c for s in result.pointwise for c in s.calls]
    assert all(c.distribution is not None and c.reason for c in calls)
    assert {round(c.expected or 0, 9) for c in calls} == {round(expected(LABELS), 9)}
