"""The progress display's running tally (calls, tokens, cost, retries) and the retry watcher."""

from __future__ import annotations

import io

from llm_qualitative_sort import (
    EventType,
    MatchResult,
    PermanentProviderError,
    ProgressEvent,
    RoundResult,
    TransientProviderError,
)
from llm_qualitative_sort.cli._progress import LineProgress
from llm_qualitative_sort.cli._retries import watched_retry


def _match_end(cached: bool) -> ProgressEvent:
    call = RoundResult("AB", "A", "r", cached, input_tokens=1000, output_tokens=50)
    match = MatchResult("x", "y", "A", [call, call], 1)
    return ProgressEvent(EventType.MATCH_END, "m", 1, 5, {"match_result": match})


def test_lines_show_calls_tokens_and_cost_so_far() -> None:
    out = io.StringIO()
    progress = LineProgress(out, lambda i, o: (i * 2.0 + o * 8.0) / 1e6)
    progress(_match_end(cached=False))
    progress(_match_end(cached=True))  # cache hits are not paid calls
    progress(ProgressEvent(EventType.ROUND_END, "round 1: 2 matches", 2, 5,
                           {"round": 1, "remaining": 3}))
    assert out.getvalue() == ("round 1: 2 matches (2/5 matches; 2 calls, 2.1k tokens, "
                              "cost 0.0048)\n")


def test_retries_are_counted_and_shown_at_most_every_few_seconds() -> None:
    out = io.StringIO()
    progress = LineProgress(out, None)
    for _ in range(3):
        progress.retrying(TransientProviderError("429 rate limited"))
    assert out.getvalue() == "retrying (1 so far): 429 rate limited\n"
    assert progress.tally.retries == 3 and "3 retries" in progress.tally.describe()


def test_the_watched_policy_reports_what_it_retries_and_nothing_else() -> None:
    seen: list[BaseException] = []
    policy = watched_retry(seen.append)
    transient, permanent = TransientProviderError("503"), PermanentProviderError("401")
    assert policy.retry_on(transient) is True  # type: ignore[operator]
    assert policy.retry_on(permanent) is False  # type: ignore[operator]
    assert seen == [transient]


def _rate_event(judge: str, limited: int) -> ProgressEvent:
    return ProgressEvent(EventType.RATE_LIMIT, "waiting 4 s for the rate limit, 12 calls/s",
                         0, 0, {"judge": judge, "seconds": 4.0, "rate": 12.0,
                                "limited": limited})


def test_rate_pauses_are_shown_and_their_429s_counted_per_judge() -> None:
    out = io.StringIO()
    progress = LineProgress(out, None)
    progress(_rate_event("gpt", 3))
    progress(_rate_event("gpt", 5))  # within a few seconds: counted, not shown again
    progress(_rate_event("gemini", 2))
    assert out.getvalue() == "waiting 4 s for the rate limit, 12 calls/s\n"
    assert progress.tally.limited == 7 and "7 × 429" in progress.tally.describe()


def test_a_round_line_says_how_sure_the_top_k_is_only_when_the_run_measures_it() -> None:
    out = io.StringIO()
    progress = LineProgress(out, None)
    end = ProgressEvent(EventType.ROUND_END, "round 1: 2 matches", 2, 5, {"round": 1})
    progress(ProgressEvent(EventType.STANDINGS, "s", 2, 5,
                           {"top": ["a", "b"], "expected": None}))
    progress(end)
    progress(ProgressEvent(EventType.STANDINGS, "s", 2, 5,
                           {"top": ["a", "b"], "expected": 0.8149}))
    progress(end)
    assert out.getvalue().splitlines() == [
        "round 1: 2 matches (2/5 matches; 0 calls)",
        "round 1: 2 matches (2/5 matches; 0 calls), top 2 expected 81 % right"]
