"""Detach and resume in Python; a crash between submitting and recording; live after batch."""

from __future__ import annotations

import pytest
from _batch_setup import batch_provider, batch_server
from _setup import hidden_scores, make_items
from test_batch_sort import calls_of, sorter

from llm_qualitative_sort import BatchOptions, RunDetached, RunStoppedError

ITEMS = make_items(8)
DETACH = BatchOptions(poll_interval=0.005, max_poll_interval=0.02, detach=True)


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_detach_submits_and_returns_and_each_resume_moves_on(kind, tmp_path) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        run = sorter(batch_provider(kind, url, DETACH), tmp_path)
        with pytest.raises(RunDetached) as detached:
            await run.sort(ITEMS, run_id="detached")
        assert detached.value.run_id == "detached"
        assert detached.value.batches == [b.batch_id for b in fake.batches.values()]
        assert "resume('detached')" in str(detached.value)
        assert [b.state for b in fake.batches.values()] in (
            ["validating"], ["BATCH_STATE_PENDING"])
        steps = 1
        while True:  # every call checks once, collects what ended, submits what is next
            try:
                result = await run.resume("detached")
                break
            except RunDetached:
                steps += 1
                assert steps < 100
        clean = await sorter(batch_provider(kind, url), tmp_path, checkpointer=None).sort(ITEMS)
    stats = result.statistics
    assert steps > stats.rounds  # a batch takes several checks to end
    assert fake.rounds()[: stats.rounds] == list(range(1, stats.rounds + 1))
    assert len(fake.batches) == 2 * stats.rounds  # the detached run's, then the clean run's
    assert calls_of(result) == calls_of(clean)


async def test_resuming_a_detached_run_without_detach_waits_to_the_end(tmp_path) -> None:
    with batch_server("openai", hidden_scores(ITEMS)) as (fake, url):
        with pytest.raises(RunDetached):
            await sorter(batch_provider("openai", url, DETACH), tmp_path).sort(ITEMS, "d")
        result = await sorter(batch_provider("openai", url), tmp_path).resume("d")
        assert fake.rounds() == list(range(1, result.statistics.rounds + 1))


async def test_resuming_live_while_a_batch_is_out_is_refused(tmp_path) -> None:
    with batch_server("openai", hidden_scores(ITEMS)) as (fake, url):
        with pytest.raises(RunDetached):
            await sorter(batch_provider("openai", url, DETACH), tmp_path).sort(ITEMS, "d")
        live = batch_provider("openai", url)
        live.batch = None  # the same provider, in live mode
        with pytest.raises(RunStoppedError, match="waiting on batch batch_1.*batch mode"):
            await sorter(live, tmp_path).resume("d")
        assert not any("/chat/completions" in entry for entry in fake.log)


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_crash_between_submit_and_record_finds_the_batch_by_its_tag(
    kind, tmp_path, monkeypatch
) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        provider = batch_provider(kind, url)
        original = provider.batch_client

        def crashing():
            client = original()
            submit = client.submit

            async def submit_then_die(*args):
                await submit(*args)
                raise Crash

            client.submit = submit_then_die
            return client

        monkeypatch.setattr(provider, "batch_client", crashing)
        with pytest.raises(Crash):
            await sorter(provider, tmp_path).sort(ITEMS, run_id="crashed")
        assert len(fake.batches) == 1
        result = await sorter(batch_provider(kind, url), tmp_path).resume("crashed")
        assert fake.rounds() == list(range(1, result.statistics.rounds + 1))
        assert any("/batches?" in entry for entry in fake.log)


@pytest.mark.parametrize("kind", ["openai", "google"])
async def test_a_batch_the_provider_no_longer_knows_stops_the_run_clearly(kind, tmp_path) -> None:
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        with pytest.raises(RunDetached):
            await sorter(batch_provider(kind, url, DETACH), tmp_path).sort(ITEMS, "gone")
        fake.batches.clear()  # deleted at the provider
        with pytest.raises(RunStoppedError, match="unknown to the provider"):
            await sorter(batch_provider(kind, url), tmp_path).resume("gone")
        assert not fake.batches  # nothing submitted in its place
