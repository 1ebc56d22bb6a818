"""Soft verdicts through the real clients: log-probabilities asked for, read, refused."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from _fakes import FakeJudge
from _setup import make_provider

from llm_qualitative_sort import QualitativeSorter, Swiss
from llm_qualitative_sort.providers.langchain import LangChainProvider

LABELS = {"A": math.log(0.5), "B": math.log(0.3), "tie": math.log(0.05)}


def softmax_first(labels: dict[str, float], ties: bool) -> float:
    """The expected value: softmax over the labels sent, a tie counting half."""
    kept = {k: v for k, v in labels.items() if ties or k != "tie"}
    total = sum(math.exp(v) for v in kept.values())
    return (math.exp(kept["A"]) + 0.5 * math.exp(kept.get("tie", -math.inf))) / total


@pytest.fixture
def served_by(
    openai_judge: tuple[FakeJudge, str], gemini_judge: tuple[FakeJudge, str]
) -> dict[str, tuple[FakeJudge, str]]:
    return {"openai": openai_judge, "google": gemini_judge}


def ask(provider: LangChainProvider, items: list[str], ties: bool = False):  # type: ignore[no-untyped-def]
    return asyncio.run(provider.compare_call(items[0], items[1], "clarity", repetition=0,
                                             ties=ties))


@pytest.mark.parametrize("kind", ["openai", "langchain"])
def test_openai_logprobs_become_the_probability(
    kind: str, openai_judge: tuple[FakeJudge, str], items: list[str]
) -> None:
    judge, url = openai_judge
    judge.logprobs = LABELS
    provider = make_provider(kind, url)
    assert isinstance(provider, LangChainProvider)
    result = ask(provider, items)
    sent = judge.seen[-1].body
    assert sent["logprobs"] is True and sent["top_logprobs"] >= 2
    # The server sent "tie" too: it counts in the softmax, as half a win.
    assert result.probability == pytest.approx(softmax_first(LABELS, ties=True))
    assert result.raw_response["verdict_logprobs"]["B"] == pytest.approx(LABELS["B"])
    assert "logprobs" not in result.raw_response["response_metadata"]


def test_no_logprobs_sent_is_a_hard_verdict(
    openai_judge: tuple[FakeJudge, str], items: list[str]
) -> None:
    judge, url = openai_judge
    result = ask(make_provider("openai", url), items)  # type: ignore[arg-type]
    assert result.winner in ("A", "B") and result.probability is None


def asked_logprobs(body: dict[str, object]) -> bool:
    """Whether a request (OpenAI's or Gemini's wire format) asked for log-probabilities."""
    config = body.get("generationConfig")
    if isinstance(config, dict):
        return bool(config.get("responseLogprobs"))
    return bool(body.get("logprobs"))


def test_gemini_logprobs_become_the_probability(
    gemini_judge: tuple[FakeJudge, str], items: list[str]
) -> None:
    judge, url = gemini_judge
    judge.logprobs = LABELS
    provider = make_provider("google", url)
    assert isinstance(provider, LangChainProvider)
    result = ask(provider, items, ties=True)
    config = judge.seen[-1].body["generationConfig"]
    assert config["responseLogprobs"] is True and config["logprobs"] >= 2
    assert judge.seen[-1].method == "json_schema"
    assert result.probability == pytest.approx(softmax_first(LABELS, ties=True))
    assert result.raw_response["verdict_logprobs"]["tie"] == pytest.approx(LABELS["tie"])
    assert "logprobs_result" not in result.raw_response["response_metadata"]
    # A Gemini answer without logprobsResult (the model sent none): a hard verdict.
    judge.logprobs = None
    assert ask(provider, items).probability is None


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_refused_logprobs_are_asked_again_without_and_remembered(
    kind: str, served_by: dict[str, tuple[FakeJudge, str]], items: list[str]
) -> None:
    judge, url = served_by[kind]
    judge.refuse_logprobs, judge.logprobs = True, LABELS
    provider = make_provider(kind, url)
    assert isinstance(provider, LangChainProvider)
    first = ask(provider, items)
    assert first.winner in ("A", "B") and first.probability is None
    assert [r["method"] for r in first.raw_response["rejected"]] == ["logprobs"]
    assert first.raw_response["rejected"][0]["status"] == 400
    assert [asked_logprobs(s.body) for s in judge.seen] == [True, False]
    assert provider.method == "json_schema"  # a refusal of log-probs is not of the format
    second = ask(provider, items)
    assert second.probability is None and "rejected" not in second.raw_response
    assert [asked_logprobs(s.body) for s in judge.seen] == [True, False, False]


def test_soft_sort_keeps_each_calls_probability(
    openai_judge: tuple[FakeJudge, str], items: list[str], tmp_path: Path
) -> None:
    judge, url = openai_judge
    judge.logprobs = {"A": math.log(0.7), "B": math.log(0.3)}
    provider = make_provider("openai", url)
    sorter = QualitativeSorter(provider, criteria="clarity",
                               strategy=Swiss(budget=20, verdicts="soft"),
                               seed=1, checkpointer=tmp_path / "runs.sqlite3")
    result = asyncio.run(sorter.sort(items[:8]))
    calls = [c for m in result.match_history for c in m.rounds]
    assert calls and all(c.probability is not None for c in calls)
    # In match terms: 0.7 for the first-shown text, so 0.3 for item_a when shown second.
    assert {round(c.probability, 6) for c in calls if c.order == "AB"} <= {0.7}
    assert {round(c.probability, 6) for c in calls if c.order == "BA"} <= {0.3}
    assert result.verdicts == "soft"


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_logprobs_false_never_asks(
    kind: str, served_by: dict[str, tuple[FakeJudge, str]], items: list[str]
) -> None:
    judge, url = served_by[kind]
    judge.logprobs = LABELS
    provider = make_provider(kind, url, logprobs=False)
    assert ask(provider, items).probability is None  # type: ignore[arg-type]
    assert [asked_logprobs(s.body) for s in judge.seen] == [False]
