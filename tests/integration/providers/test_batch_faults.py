"""Batches that end badly: expired, cancelled, failed, malformed, refused, partly failed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from _batch_setup import batch_provider, batch_server
from _setup import KEY, hidden_scores, make_items
from test_batch_sort import calls_of, sorter

from llm_qualitative_sort import RunStoppedError

ITEMS = make_items(10)
SCORES = hidden_scores(ITEMS)


_CLEAN: dict[str, list] = {}


async def clean_calls(kind: str, tmp_path: Path) -> list:
    """The calls of a batch sort without faults (the same for every test of a kind)."""
    if kind not in _CLEAN:
        with batch_server(kind, SCORES) as (_, url):
            run = sorter(batch_provider(kind, url), tmp_path, checkpointer=None)
            _CLEAN[kind] = calls_of(await run.sort(ITEMS))
    return _CLEAN[kind]


def first_round_batches(fake) -> list[list[str]]:
    return [[r.request_id for r in b.requests] for b in fake.batches.values()
            if b.tag.startswith("lqs-r1-")]


@pytest.mark.parametrize(("kind", "fault", "done"), [
    ("openai", "expire", "half"), ("openai", "cancel", "half"),
    ("google", "cancel", "half"), ("google", "expire", "none"),
])
async def test_requests_a_batch_left_unanswered_go_alone_into_the_next(
    kind, fault, done, tmp_path
) -> None:
    with batch_server(kind, SCORES, script=[fault]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        first, retry, *rest = first_round_batches(fake)
        submitted = Counter(fake.submitted())
    assert not rest
    answered = first[: len(first) // 2] if done == "half" else []
    assert retry == [r for r in first if r not in answered]  # exactly the unanswered ones
    assert [key for key, n in submitted.items() if n > 1] == [(1, r) for r in retry]
    assert calls_of(result) == await clean_calls(kind, tmp_path)
    assert result.statistics.batch_calls == result.statistics.total_api_calls


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_failed_batch_stops_the_run_and_resume_submits_the_round_again(
    kind, tmp_path
) -> None:
    with batch_server(kind, SCORES, script=["fail"]) as (fake, url):
        run = sorter(batch_provider(kind, url), tmp_path)
        with pytest.raises(RunStoppedError, match="rejected batch") as stopped:
            await run.sort(ITEMS, run_id="failed-batch")
        assert len(fake.batches) == 1
        result = await run.resume(stopped.value.run_id)
        rounds = fake.rounds()
    assert rounds == [1, *range(1, result.statistics.rounds + 1)]
    assert calls_of(result) == await clean_calls(kind, tmp_path)


async def test_a_batch_that_fails_validation_names_the_problem(tmp_path) -> None:
    with batch_server("openai", SCORES) as (fake, url):
        provider = batch_provider("openai", url, model="gpt-0-unknown")
        with pytest.raises(RunStoppedError, match="model gpt-0-unknown does not exist"):
            await sorter(provider, tmp_path).sort(ITEMS)
        assert [b.state for b in fake.batches.values()] == ["failed"]


@pytest.mark.parametrize(("kind", "options", "message"), [
    ("openai", {"api_key": "sk-BAD-key-0001"}, "authentication failed"),
    ("google", {"api_key": "BAD-key-0002"}, "authentication failed"),
    ("google", {"model": "gemini-0-unknown"}, "not found"),
])
async def test_a_batch_refused_at_creation_stops_the_run_clearly(
    kind, options, message, tmp_path
) -> None:
    with batch_server(kind, SCORES) as (fake, url):
        run = sorter(batch_provider(kind, url, **options), tmp_path)
        with pytest.raises(RunStoppedError, match=message) as stopped:
            await run.sort(ITEMS, run_id="refused")
        assert not fake.batches
        given = str(options.get("api_key", KEY))
        assert given not in str(stopped.value) and KEY not in str(stopped.value)
        # Resumable once the cause is fixed; another model is another judge, said so.
        fixed = sorter(batch_provider(kind, url), tmp_path,
                       allow_judge_change="model" in options)
        result = await fixed.resume("refused")
    assert result.statistics.batch_calls == result.statistics.total_api_calls > 0


async def test_a_malformed_output_line_is_asked_again(tmp_path) -> None:
    with batch_server("openai", SCORES, script=["malformed"]) as (fake, url):
        result = await sorter(batch_provider("openai", url), tmp_path).sort(ITEMS)
        first, again = first_round_batches(fake)
    assert again == first[:1]  # only the request whose line could not be read
    assert result.statistics.failed_calls == 0
    assert calls_of(result) == await clean_calls("openai", tmp_path)


@pytest.mark.parametrize(("kind", "fault"), [
    ("openai", "malformed"), ("openai", "garbled"), ("openai", "refusal"),
    ("google", "garbled"), ("google", "refusal"),
])
async def test_without_reasks_an_answer_without_verdict_counts_for_neither(
    kind, fault, tmp_path
) -> None:
    with batch_server(kind, SCORES, script=[fault]) as (fake, url):
        result = await sorter(batch_provider(kind, url, reasks=0), tmp_path).sort(ITEMS)
        assert len(first_round_batches(fake)) == 1
    stats = result.statistics
    assert stats.failed_calls == 1 and stats.batch_calls == stats.total_api_calls
    failed = [c for m in result.match_history for c in m.rounds if c.winner is None]
    assert len(failed) == 1 and "no usable verdict after 1 answer(s)" in failed[0].reasoning


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_an_answer_without_verdict_is_asked_again_in_the_next_batch(kind, tmp_path) -> None:
    with batch_server(kind, SCORES, script=["garbled"]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        first, again = first_round_batches(fake)
    assert again == first[:1]
    stats = result.statistics
    assert stats.failed_calls == 0 and stats.total_api_calls == len(fake.submitted()) - 1
    # Both answers were paid for: the tokens of the re-asked call count twice.
    assert stats.input_tokens == 100 * len(fake.submitted())


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_request_that_failed_in_the_batch_goes_alone_into_the_next(
    kind, tmp_path
) -> None:
    with batch_server(kind, SCORES, script=["request_error"]) as (fake, url):
        result = await sorter(batch_provider(kind, url), tmp_path).sort(ITEMS)
        first, again = first_round_batches(fake)
    assert again == first[:1]
    assert calls_of(result) == await clean_calls(kind, tmp_path)


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_request_refused_for_good_stops_the_run(kind, tmp_path) -> None:
    with batch_server(kind, SCORES, script=["invalid"]) as (fake, url):
        run = sorter(batch_provider(kind, url), tmp_path)
        with pytest.raises(RunStoppedError, match="refused a request.*round 1, match 0") as e:
            await run.sort(ITEMS, run_id="invalid")
        assert "400" in str(e.value)
        result = await run.resume("invalid")
        first, again, *_ = first_round_batches(fake)
    assert again == first[:1]  # the rest of the batch was kept, not paid again
    assert calls_of(result) == await clean_calls(kind, tmp_path)


async def test_gemini_responses_without_metadata_are_matched_by_position(tmp_path) -> None:
    with batch_server("google", SCORES, script=["no_metadata"]) as (fake, url):
        result = await sorter(batch_provider("google", url), tmp_path).sort(ITEMS)
        assert len(first_round_batches(fake)) == 1
    assert calls_of(result) == await clean_calls("google", tmp_path)
