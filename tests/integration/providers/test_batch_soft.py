"""Soft verdicts in batch mode: batch requests ask for log-probabilities as live calls do,
their answers are read for the probability, and a refusal is submitted again without."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from _batch_setup import batch_provider, batch_server
from _setup import hidden_scores, make_items
from langgraph.types import RetryPolicy

from llm_qualitative_sort import QualitativeSorter, Swiss, TransientProviderError

KINDS = ["openai", "google"]
FAST_RETRY = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=4,
                         jitter=False, retry_on=TransientProviderError)
# What the fake sends at the verdict token: the first-shown text wins with 0.5 / 0.8.
LABELS = {"A": math.log(0.5), "B": math.log(0.3), "tie": math.log(0.2)}
EXPECTED = (0.5 + 0.5 * 0.2) / 1.0  # softmax over the labels sent, a tie counting half


def asked(kind: str, body: dict[str, Any]) -> bool:
    """Whether one request of a batch (as the fake server stored it) asked for log-probs."""
    if kind == "openai":
        return bool(body["body"].get("logprobs"))
    return bool(body["request"].get("generationConfig", {}).get("responseLogprobs"))


def sorter(provider: Any, tmp_path: Path) -> QualitativeSorter:
    return QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                             retry_policy=FAST_RETRY, strategy=Swiss(budget=24, verdicts="soft"),
                             checkpointer=tmp_path / "runs.sqlite3")


@pytest.mark.parametrize("kind", KINDS)
async def test_batch_answers_carry_the_probability(kind: str, tmp_path: Path) -> None:
    items = make_items(8)
    with batch_server(kind, hidden_scores(items), logprobs=LABELS) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(items)
        bodies = [r.body for b in fake.batches.values() for r in b.requests]
    assert bodies and all(asked(kind, body) for body in bodies)
    if kind == "openai":
        assert all(body["body"]["top_logprobs"] >= 2 for body in bodies)
    else:
        assert all(body["request"]["generationConfig"]["logprobs"] >= 2 for body in bodies)
    calls = [c for m in result.match_history for c in m.rounds]
    assert calls and all(c.batch for c in calls)
    # In match terms: the first-shown text's probability, or its complement when shown second.
    for call in calls:
        shown_first = EXPECTED if call.order == "AB" else 1 - EXPECTED
        assert call.probability == pytest.approx(shown_first)
    assert result.verdicts == "soft"


# "request": each request of the batch refused (a 400 of its own); "batch": the whole batch
# rejected, naming log-probabilities (OpenAI's batch errors; google-genai drops the error of
# a failed Gemini batch, so there the cause cannot be read).
@pytest.mark.parametrize(("kind", "where"), [("openai", "request"), ("google", "request"),
                                             ("openai", "batch")])
async def test_a_refusal_in_a_batch_is_submitted_again_without(
    kind: str, where: str, tmp_path: Path
) -> None:
    items = make_items(8)
    scores = hidden_scores(items)
    with batch_server(kind, scores, logprobs=LABELS, refuse_logprobs=where) as (fake, url):
        provider = batch_provider(kind, url)
        result = await sorter(provider, tmp_path).sort(items)
        batches = [[asked(kind, r.body) for r in b.requests] for b in fake.batches.values()]
    # The first batch asked and was refused; every later one (the same calls submitted
    # again, then the next rounds) did not ask.
    assert batches[0] and all(batches[0])
    assert len(batches) >= 2 and not any(any(b) for b in batches[1:])
    assert provider.logprobs is False  # remembered for the model
    calls = [c for m in result.match_history for c in m.rounds]
    assert calls and all(c.probability is None and c.winner is not None for c in calls)
    assert result.statistics.failed_calls == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_a_batch_creation_refused_for_log_probabilities_is_made_again_without(
    kind: str, tmp_path: Path
) -> None:
    items = make_items(8)
    with batch_server(kind, hidden_scores(items), logprobs=LABELS,
                      refuse_logprobs="create") as (fake, url):
        provider = batch_provider(kind, url)
        result = await sorter(provider, tmp_path).sort(items)
        refused = fake.refused_creations
        batches = [[asked(kind, r.body) for r in b.requests] for b in fake.batches.values()]
    assert refused == 1  # asked once with them, refused, then never again
    assert batches and not any(any(b) for b in batches)
    assert fake.rounds() == list(range(1, result.statistics.rounds + 1))  # one per round
    assert provider.logprobs is False
    calls = [c for m in result.match_history for c in m.rounds]
    assert calls and all(c.probability is None and c.winner is not None for c in calls)


@pytest.mark.parametrize("kind", KINDS)
async def test_logprobs_false_never_asks_in_a_batch(kind: str, tmp_path: Path) -> None:
    items = make_items(6)
    with batch_server(kind, hidden_scores(items), logprobs=LABELS) as (fake, url):
        result = await sorter(batch_provider(kind, url, logprobs=False), tmp_path).sort(items)
        bodies = [r.body for b in fake.batches.values() for r in b.requests]
    assert bodies and not any(asked(kind, body) for body in bodies)
    assert all(c.probability is None for m in result.match_history for c in m.rounds)


async def test_a_soft_batch_run_asks_again_for_answers_cached_without_logprobs(
    tmp_path: Path,
) -> None:
    from llm_qualitative_sort import FileCache

    items = make_items(8)
    with batch_server("openai", hidden_scores(items), logprobs=LABELS) as (fake, url):
        runs = {verdicts: QualitativeSorter(
            batch_provider("openai", url, logprobs=verdicts == "soft"),
            criteria="which essay argues better", seed=4, retry_policy=FAST_RETRY,
            strategy=Swiss(budget=24, verdicts=verdicts),
            checkpointer=tmp_path / f"{verdicts}.sqlite3", cache=FileCache(tmp_path / "cache"))
            for verdicts in ("hard", "soft")}
        await runs["hard"].sort(items)  # asked without log-probabilities, cached
        result = await runs["soft"].sort(items)
    calls = [c for m in result.match_history for c in m.rounds]
    assert result.statistics.cache_hits == 0
    assert calls and all(c.batch and c.probability is not None for c in calls)
