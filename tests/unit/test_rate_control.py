"""The pace of one judge's calls: AIMD on calls in flight and starts per second, one shared
pause, tokens per minute — the pure rules, on a clock the test moves."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_qualitative_sort._calls.rate_control import MARGIN, MIN_RATE, RateControl
from llm_qualitative_sort.providers._rate_signals import RateFacts

STATED = RateFacts(retry_after=0.5, requests_limit=120)  # 2 requests per second


def test_a_burst_of_429s_from_one_burst_of_calls_cuts_once() -> None:
    control = RateControl(10)
    epochs = [control.started(0.0, 0) for _ in range(10)]
    for epoch in epochs[5:]:
        control.limited_by(0.1, epoch, STATED, 0, 0.0)
    assert control.window == 5
    assert control.rate == pytest.approx(MARGIN * 2)
    assert control.limited == 5
    soon = control.started(1.0, 0)
    control.limited_by(1.1, soon, STATED, 0, 0.0)  # within a second of the pause's end
    assert control.window == 5
    later = control.started(3.0, 0)
    control.limited_by(3.1, later, STATED, 0, 0.0)  # a 429 of a call started after the cut
    assert control.window == 2.5
    assert control.rate == pytest.approx(MARGIN * 2 * 0.9)


def test_the_pause_is_shared_and_ends_a_little_after_the_servers_time() -> None:
    control = RateControl(10)
    first = control.limited_by(0.0, 0, RateFacts(retry_after=4.0), 0, 0.99)
    assert first is not None and first.new
    assert 4.0 <= first.until <= 4.0 + 0.4
    again = control.limited_by(0.1, 0, RateFacts(retry_after=1.0), 0, 0.0)
    assert again is not None and not again.new and again.until == first.until
    assert control.start_at(0.2, 0, 0) == first.until  # every call waits for it
    assert control.held_seconds == pytest.approx(first.until)


def test_no_time_to_come_back_no_pause() -> None:
    control = RateControl(4)
    assert control.limited_by(0.0, 0, RateFacts(), 0, 0.5) is None
    assert control.window == 2  # still slower


def test_a_lone_429_before_any_answer_cuts_the_calls_in_flight_not_the_pace() -> None:
    # Nothing measured, nothing stated: a pace would be a guess (1 call/s) that takes
    # hundreds of answers to grow out of. The window is cut and grows back.
    control = RateControl(10)
    control.limited_by(0.0, control.started(0.0, 0), RateFacts(retry_after=0.0), 0, 0.0)
    assert control.rate is None and control.window == 5
    for i in range(40):
        control.answered(1.0 + i * 0.01, None)
    assert control.window == 10 and control.unbound(2.0, 9)


def test_429s_that_go_on_with_nothing_measured_pace_once_one_call_is_in_flight() -> None:
    control = RateControl(8)
    now = 0.0
    while control.rate is None:
        assert now < 10
        control.limited_by(now, control.started(now, 0), RateFacts(retry_after=0.0), 0, 0.0)
        now += 2.0
    assert control.window == 1 and control.rate <= 2.0


def test_a_first_429_with_a_time_to_come_back_paces_one_call_per_that_time() -> None:
    control = RateControl(8)
    control.limited_by(0.0, control.started(0.0, 0), RateFacts(retry_after=0.5), 0, 0.0)
    assert control.rate == pytest.approx(2.0 * 0.7) and control.window == 4


def test_a_first_429_asking_for_a_long_wait_pauses_without_setting_a_pace() -> None:
    # One call per retry-after would be a guess: a server asking for 6 s once, at the start,
    # would hold the whole run to a call every 8 s. The calls pause, and go on at full speed.
    control = RateControl(8)
    pause = control.limited_by(0.0, control.started(0.0, 0), RateFacts(retry_after=6.0), 0, 0)
    assert pause is not None and pause.until == 6.0
    assert control.rate is None and control.window == 4
    for i in range(30):
        control.answered(6.1 + i * 0.01, None)
    assert control.unbound(7.0, 7)


def test_starts_are_spaced_by_the_rate_and_the_window_bounds_calls_in_flight() -> None:
    control = RateControl(3)
    control.limited_by(0.0, 0, RateFacts(requests_limit=60), 0, 0.0)  # 0.95 per second
    control.window = 3
    at = control.start_at(10.0, 0, 0)
    assert at == 10.0
    control.started(10.0, 0)  # after an idle spell: no start is caught up on
    assert control.start_at(10.0, 1, 0) == pytest.approx(10.0 + 1 / MARGIN)
    control.started(10.0 + 1 / MARGIN, 0)
    assert control.start_at(10.0, 2, 0) == pytest.approx(10.0 + 2 / MARGIN)
    control.started(10.0 + 2 / MARGIN, 0)
    assert control.start_at(10.0, 3, 0) is None


@given(st.lists(st.tuples(st.floats(0.0, 0.2), st.floats(0.0, 3.0)), min_size=3,
                max_size=60))
def test_under_a_stated_limit_no_second_holds_more_starts_than_it_allows(
        waits: list[tuple[float, float]]) -> None:
    # A strict limiter allows 2 requests in any second, no burst: starts the loop woke
    # late (`late`), or that came after an idle spell (`idle`), must keep to it.
    control = RateControl(1000)
    control.limited_by(0.0, 0, RateFacts(requests_limit=120), 0, 0.0)
    now, starts = 0.0, []
    for late, idle in waits:
        at = control.start_at(now, 0, 0)
        assert at is not None
        now = max(at + late, now + (idle if idle > 2 else 0.0))
        control.started(now, 0)
        starts.append(now)
    for first in range(len(starts) - 2):
        assert starts[first + 2] - starts[first] >= 1.0


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=60))
def test_the_pace_never_runs_ahead_of_the_rate_by_more_than_one_start(
        lateness: list[float]) -> None:
    control = RateControl(1000)
    control.limited_by(0.0, 0, RateFacts(requests_limit=600), 0, 0.0)  # 9.5 per second
    assert control.rate is not None
    now, starts = 0.0, []
    for late in lateness:
        at = control.start_at(now, 0, 0)
        assert at is not None
        now = at + late / 10  # the loop wakes the call late
        control.started(now, 0)
        starts.append(now)
    for first in range(len(starts)):
        for last in range(first + 1, len(starts)):
            span = starts[last] - starts[first]
            assert last - first <= span * control.rate + 2 + 1e-6


def test_growth_after_a_cut_stays_under_the_stated_limit() -> None:
    control = RateControl(10)
    control.limited_by(0.0, 0, STATED, 0, 0.0)
    for i in range(1000):
        control.answered(1.0 + i, None)
    assert control.rate == pytest.approx(MARGIN * 2)
    assert control.window == 10


def test_without_a_stated_limit_the_rate_is_cut_from_the_answers_per_second() -> None:
    control = RateControl(10)
    for i in range(20):
        control.answered(i * 0.25, None)  # 4 answers a second
    control.limited_by(5.0, 0, RateFacts(retry_after=1.0), 0, 0.0)
    assert control.rate is not None and control.rate < 4.0
    slow_before = control.rate
    for i in range(10):
        control.answered(6.0 + i, None)
    assert control.rate > slow_before  # grows back while calls are answered


def test_tokens_per_minute_space_the_calls_by_their_tokens() -> None:
    control = RateControl(10)
    control.answered(0.0, RateFacts(tokens_limit=60_000))  # 950 tokens a second
    assert control.start_at(1.0, 0, 1900) == 1.0
    control.started(1.0, 1900)
    assert control.start_at(1.0, 1, 1900) == pytest.approx(3.0)


def test_an_answer_saying_nothing_remains_holds_the_starts_before_any_429() -> None:
    control = RateControl(10)
    pause = control.answered(0.0, RateFacts(requests_limit=120, requests_remaining=0,
                                            requests_reset=2.5))
    assert pause is not None and pause.until == pytest.approx(0.5)  # one call's worth
    assert control.limited == 0
    tokens = control.answered(1.0, RateFacts(tokens_limit=60_000, tokens_remaining=100,
                                             tokens_reset=6.0), tokens=1100)
    assert tokens is not None and tokens.until == pytest.approx(2.0)


def test_the_token_estimate_is_scaled_by_what_calls_used() -> None:
    control = RateControl(10)
    control.answered(0.0, RateFacts(tokens_limit=600_000))  # the tokens are paced
    for i in range(30):
        control.answered(float(i), None, tokens=1000, used=1500)
    assert control.token_scale == pytest.approx(1.5, rel=0.01)


EVENTS = st.lists(st.tuples(
    st.sampled_from(["start", "answer", "429", "429-stated", "headers"]),
    st.floats(0.0, 2.0), st.floats(0.0, 1.0)), max_size=80)


@given(EVENTS, st.integers(1, 64))
def test_any_history_keeps_the_bounds(events: list[tuple[str, float, float]],
                                      ceiling: int) -> None:
    control, now, epochs, pauses = RateControl(ceiling), 0.0, [0], 0.0
    for kind, step, u in events:
        now += step
        if kind == "start":
            epochs.append(control.started(now, 100))
        elif kind == "answer":
            control.answered(now, None, 100, 120)
        elif kind == "headers":
            control.answered(now, RateFacts(requests_limit=600, requests_remaining=0,
                                            requests_reset=0.3, tokens_limit=90_000,
                                            tokens_remaining=50, tokens_reset=2.0), 100, 90)
        else:
            facts = STATED if kind == "429-stated" else RateFacts(retry_after=u * 3)
            control.limited_by(now, epochs[-1], facts, 100, u)
        assert 1 <= control.window <= ceiling
        if control.rate is not None:
            assert control.rate >= MIN_RATE
            if control.request_cap is not None:
                assert control.rate <= control.request_cap + 1e-9
        assert control.paused_until >= pauses  # a pause is never cut short
        pauses = control.paused_until
        assert control.held_seconds <= max(now, control.paused_until) + 1e-9
