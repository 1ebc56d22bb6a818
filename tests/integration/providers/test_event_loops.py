"""Options that only show across calls: several event loops, the rate limit."""

from __future__ import annotations

import asyncio
import time

import pytest
from _fakes import FakeJudge
from _setup import make_provider


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_provider_survives_several_asyncio_runs(
    kind: str, openai_judge: tuple[FakeJudge, str], gemini_judge: tuple[FakeJudge, str]
) -> None:
    judge, url = gemini_judge if kind == "google" else openai_judge
    provider = make_provider(kind, url)
    a, b = list(judge.scores)[:2]
    for _ in range(2):  # the second run has a new loop; a loop-bound client would fail
        result = asyncio.run(provider.compare(a, b, "c"))
        assert result.winner == judge.winner((a, b))


async def test_requests_per_second_spaces_the_calls(
    openai_judge: tuple[FakeJudge, str],
) -> None:
    judge, url = openai_judge
    provider = make_provider("openai", url, requests_per_second=20)
    a, b = list(judge.scores)[:2]
    started = time.perf_counter()
    await asyncio.gather(*(provider.compare(a, b, "c") for _ in range(8)))
    assert time.perf_counter() - started >= 7 / 20 * 0.9
