"""Pointwise scoring in batch mode, against the fake OpenAI and Gemini batch servers.

Each request of a pointwise batch shows one text and asks for a label of the run's scale;
the label tokens' log-probabilities give the expected label as on live calls; an answer
without a usable label is asked again in the next batch, then a visible failed call; a run
detached or stopped while its batch is out re-attaches to that batch and never pays twice.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from _batch_setup import batch_provider, batch_server
from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
from _setup import KEY, hidden_scores, make_items, make_provider
from langgraph.types import RetryPolicy

from llm_qualitative_sort import (
    BatchOptions,
    FileCache,
    Pointwise,
    QualitativeSorter,
    RunDetached,
    SortResult,
    TransientProviderError,
)

KINDS = ["openai", "google"]
ITEMS = make_items(8)
FAST_RETRY = RetryPolicy(initial_interval=0.01, max_interval=0.05, max_attempts=4,
                         jitter=False, retry_on=TransientProviderError)
DETACH = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, detach=True)
# What the fake sends at the label token of every answer that asked for log-probabilities.
LABELS = {"1": math.log(0.05), "2": math.log(0.15), "3": math.log(0.5), "4": math.log(0.3)}
DISTRIBUTION = {1: 0.05, 2: 0.15, 3: 0.5, 4: 0.3}  # softmax(z): they sum to 1
EXPECTED = sum(k * p for k, p in DISTRIBUTION.items())  # S = sum k softmax(z)_k = 3.05


def sorter(provider: Any, tmp_path: Path, **options: Any) -> QualitativeSorter:
    options.setdefault("checkpointer", tmp_path / "runs.sqlite3")
    options.setdefault("strategy", Pointwise(repetitions=2))
    return QualitativeSorter(provider, criteria="which essay argues better", seed=4,
                             retry_policy=FAST_RETRY, **options)


def request_body(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The generation request of one batch line (OpenAI) or inlined request (Gemini)."""
    return body["body"] if kind == "openai" else body["request"]


def label_schema(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    request = request_body(kind, body)
    if kind == "openai":
        assert request["response_format"]["json_schema"]["strict"] is True
        return request["response_format"]["json_schema"]["schema"]
    return request["generationConfig"]["responseJsonSchema"]


def asked_logprobs(kind: str, body: dict[str, Any]) -> bool:
    request = request_body(kind, body)
    if kind == "openai":
        return bool(request.get("logprobs"))
    return bool(request.get("generationConfig", {}).get("responseLogprobs"))


def scores_of(result: SortResult) -> list[tuple[str, float | None, list[int | None]]]:
    return [(s.item, s.score, [c.label for c in s.calls]) for s in result.pointwise]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_pointwise_batch_scores_every_text_with_the_label_probabilities(
    kind: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), logprobs=LABELS) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        requests = [r for b in fake.batches.values() for r in b.requests]
    assert len(fake.batches) == 1 and len(requests) == 2 * len(ITEMS)  # one round, one batch
    # Each request shows one text alone and asks for a label of the scale, with log-probs.
    assert Counter(r.text for r in requests) == {item: 2 for item in ITEMS}
    assert all(r.texts is None and asked_logprobs(kind, r.body) for r in requests)
    assert all(label_schema(kind, r.body)["properties"]["label"]["enum"] == [1, 2, 3, 4]
               for r in requests)
    calls = [c for s in result.pointwise for c in s.calls]
    assert len(calls) == 16 and all(c.batch and c.label is not None and c.reason for c in calls)
    for call in calls:
        assert call.distribution == pytest.approx(DISTRIBUTION)
        assert call.expected == pytest.approx(EXPECTED)
    stats = result.statistics
    assert stats.batch_calls == stats.total_api_calls == 16 and stats.failed_calls == 0


@pytest.mark.parametrize("kind", KINDS)
async def test_without_log_probabilities_a_batch_run_scores_like_the_live_run(
    kind: str, tmp_path: Path
) -> None:
    judge = FakeJudge(hidden_scores(ITEMS), KEY, "gpt-5.1" if kind == "openai" else "gemini-3.0")
    server, live_url = serve(judge, OpenAIDialect if kind == "openai" else GeminiDialect)
    try:
        live = make_provider(kind, live_url + ("/v1" if kind == "openai" else "/v1beta"))
        expected = await sorter(live, tmp_path, checkpointer=None).sort(ITEMS)
    finally:
        server.shutdown()
        server.server_close()
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
    assert scores_of(result) == scores_of(expected)
    assert result.rankings == expected.rankings
    assert all(c.distribution is None for s in result.pointwise for c in s.calls)


@pytest.mark.parametrize("kind", KINDS)
async def test_an_answer_off_the_scale_is_asked_again_then_a_visible_failed_call(
    kind: str, tmp_path: Path
) -> None:
    bad = ITEMS[7]
    with batch_server(kind, hidden_scores(ITEMS), bad_label={bad}) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path,
                              strategy=Pointwise()).sort(ITEMS)
        batches = [[r.text for r in b.requests] for b in fake.batches.values()]
    assert batches[1:] == [[bad]]  # asked again alone in a second batch (reasks=1)
    failed = next(s for s in result.pointwise if s.item == bad)
    (call,) = failed.calls
    assert failed.score is None and call.label is None and call.batch
    assert "no usable label after 2 answer(s)" in call.reason and "not on the scale" in call.reason
    assert call.input_tokens == 200  # both answers were paid for
    assert result.statistics.failed_calls == 1 and result.rankings[-1][1] == [bad]


@pytest.mark.parametrize("kind", KINDS)
async def test_an_unreadable_answer_is_asked_again_and_then_counts(
    kind: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), script=["garbled"]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path,
                              strategy=Pointwise()).sort(ITEMS)
        batches = [[r.text for r in b.requests] for b in fake.batches.values()]
    assert len(batches) == 2 and batches[1] == batches[0][:1]
    assert result.statistics.failed_calls == 0
    again = next(s for s in result.pointwise if s.item == batches[0][0])
    assert again.calls[0].label is not None and again.calls[0].input_tokens == 200


@pytest.mark.parametrize(("kind", "fault"), [("openai", "expire"), ("google", "cancel")])
async def test_requests_a_batch_left_unanswered_alone_go_out_again(
    kind: str, fault: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), script=[fault]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        ids = [request_id for _, request_id in fake.submitted()]
        first = [r.request_id for r in next(iter(fake.batches.values())).requests]
    assert len(fake.batches) == 2
    assert sorted(ids[len(first):]) == sorted(first[len(first) // 2:])  # the unanswered half
    assert result.statistics.failed_calls == 0 and result.statistics.batch_calls == 16


@pytest.mark.parametrize("kind", KINDS)
async def test_a_detached_pointwise_run_re_attaches_to_its_batch_and_never_pays_twice(
    kind: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), logprobs=LABELS) as (fake, url):
        run = sorter(batch_provider(kind, url, DETACH), tmp_path)
        with pytest.raises(RunDetached) as detached:
            await run.sort(ITEMS, run_id="scores")
        assert detached.value.batches == [b.batch_id for b in fake.batches.values()]
        steps = 1
        while True:  # each resume checks the same batch once
            try:
                result = await run.resume("scores")
                break
            except RunDetached:
                steps += 1
                assert steps < 100
        submitted = fake.submitted()
    assert steps > 1 and len(fake.batches) == 1
    assert len(submitted) == len(set(submitted)) == 16  # each call asked once
    assert result.statistics.batch_calls == 16 and result.statistics.failed_calls == 0
    assert all(c.expected == pytest.approx(EXPECTED) for s in result.pointwise for c in s.calls)


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


@pytest.mark.parametrize("kind", KINDS)
async def test_a_run_stopped_after_submitting_finds_its_batch_again_by_tag(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        provider = batch_provider(kind, url)
        original = provider.batch_client

        def crashing() -> Any:
            client = original()
            submit = client.submit

            async def submit_then_die(*args: Any) -> str:
                await submit(*args)
                raise Crash

            client.submit = submit_then_die  # type: ignore[method-assign]
            return client

        monkeypatch.setattr(provider, "batch_client", crashing)
        with pytest.raises(Crash):
            await sorter(provider, tmp_path).sort(ITEMS, run_id="crashed")
        result = await sorter(batch_provider(kind, url), tmp_path).resume("crashed")
        assert len(fake.batches) == 1 and any("/batches?" in entry for entry in fake.log)
    assert result.statistics.batch_calls == 16


@pytest.mark.parametrize("kind", KINDS)
async def test_batch_answers_are_cached_under_the_live_calls_key(
    kind: str, tmp_path: Path
) -> None:
    cache = FileCache(tmp_path / "cache")
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        first = await sorter(batch_provider(kind, url), tmp_path, cache=cache).sort(ITEMS)
        again = await sorter(batch_provider(kind, url), tmp_path, cache=cache,
                             checkpointer=None).sort(ITEMS)
        assert len(fake.batches) == 1  # the warm cache answered the second run
        live = batch_provider(kind, url)
        live.batch = None  # the same judge in live mode asks the same question
        shared = await sorter(live, tmp_path, cache=cache, checkpointer=None).sort(ITEMS)
        inverse = await sorter(batch_provider(kind, url), tmp_path, cache=cache,
                               checkpointer=None, strategy=Pointwise(inverse=True,
                                                                     repetitions=2)).sort(ITEMS)
        log = list(fake.log)
    assert not any("generateContent" in e or "/chat/completions" in e for e in log
                   if "batchGenerateContent" not in e)  # no live call: the cache served it
    assert again.statistics.cache_hits == shared.statistics.cache_hits == 16
    assert scores_of(again) == scores_of(shared) == scores_of(first)
    # The inverse question is another question: its calls were not served from the cache.
    assert inverse.statistics.cache_hits == 0 and len(fake.batches) == 2


@pytest.mark.parametrize("kind", KINDS)
async def test_the_inverse_question_is_asked_in_the_batch(kind: str, tmp_path: Path) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path,
                              strategy=Pointwise(inverse=True)).sort(ITEMS)
        prompts = [str(r.body) for b in fake.batches.values() for r in b.requests]
    assert all("how far the text is from meeting the criterion" in p.lower() for p in prompts)
    best = max(ITEMS, key=lambda item: hidden_scores(ITEMS)[item])
    # The fake answers the highest label for the best text: asked how far it is, its
    # score is the complement, the lowest.
    assert next(s.score for s in result.pointwise if s.item == best) == 0.0


@pytest.mark.parametrize(("kind", "where"), [("openai", "request"), ("google", "request"),
                                             ("openai", "create"), ("google", "create")])
async def test_a_refusal_of_log_probabilities_is_submitted_again_without_them(
    kind: str, where: str, tmp_path: Path
) -> None:
    with batch_server(kind, hidden_scores(ITEMS), logprobs=LABELS,
                      refuse_logprobs=where) as (fake, url):
        provider = batch_provider(kind, url)
        result = await sorter(provider, tmp_path).sort(ITEMS)
        batches = [[asked_logprobs(kind, r.body) for r in b.requests]
                   for b in fake.batches.values()]
    assert batches[-1] and not any(batches[-1])  # the last batch no longer asked
    assert provider.logprobs is False
    calls = [c for s in result.pointwise for c in s.calls]
    assert len(calls) == 16 and all(c.label is not None and c.distribution is None
                                    for c in calls)
    assert result.statistics.failed_calls == 0
