"""The pace of one judge's calls under a provider's rate limits: pure rules, time passed in.

Three things bound when the next call may start:

- **calls in flight** (`window`): starts at `max_concurrent_requests`, halves on a 429,
  grows back by about one call per window of answered calls (additive increase,
  multiplicative decrease, as TCP does);
- **starts per second** (`rate`): none at first; a 429 sets it, from the limit the server
  states (OpenAI's `x-ratelimit-limit-requests`, Gemini's per-minute quota) or else from
  the answers per second just before the 429, or one call per `retry-after` when that is
  short (`INTERVAL_WAIT`: a token bucket's refill), cut by `RATE_CUT` (with none of these,
  a 429 only halves the window, and pauses if it says when to come back, until one call is
  left in flight: a pace guessed from a window's reset, `retry-after: 6`, would take
  hundreds of answers to grow out of); it then grows slowly while calls are answered
  (fast up to `KNEE` of the rate that met the 429, slowly beyond), never above the stated
  limit (times `MARGIN`). Starts keep to it within any second: lateness is caught up on
  only up to `CATCH_UP`;
- **tokens per second**: when the server states a token limit, each call's estimated
  tokens are spaced at `MARGIN` of it; the estimate is scaled by what calls really used.

A 429 that says when to come back (`retry-after`, Gemini's `retryDelay`, or the reset of
the exhausted limit) pauses every call of the judge together: one pause, ending a little
after the server's time (jitter drawn once per pause, not per call). An answer saying that
nothing remains holds the starts until one call's worth is back, before any 429.

Only the first 429 among the calls started since the last cut cuts again (`epoch`): a
burst of 429s answering one burst of calls is one signal, not fifty.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from llm_qualitative_sort.providers._rate_signals import RateFacts

MARGIN = 0.95  # of a stated limit: answers arrive with jitter, the limit is exact
WINDOW_CUT = 0.5
RATE_CUT = 0.7  # of the rate that met a 429, when the server states no limit
STATED_CUT = 0.9  # when it does: a 429 at the stated limit is the answers' jitter
KNEE = 0.9
FAST_GROWTH = 0.2  # starts/s added per answered call: +20 % of the rate per second
SLOW_GROWTH = 0.02  # beyond KNEE of the rate that met the last 429: +2 % per second
QUIET = 1.0  # seconds after a cut (and its pause) in which a 429 cuts no more
# The longest retry-after taken as the interval between calls, before anything is measured.
INTERVAL_WAIT = 2.0
# Seconds of a start's lateness caught up on: at MARGIN of a stated limit, starts then
# never exceed it within any window of a second or more.
CATCH_UP = 0.05
MIN_RATE = 0.01  # starts per second, at least (one a hundred seconds)
THROUGHPUT_SPAN = 10.0  # seconds of answers that measure the rate before a 429
ANSWERS_KEPT = 256  # answers kept for that measure, at most
JITTER_SHARE, JITTER_MAX = 0.1, 1.0  # a pause ends up to 10 % (at most 1 s) late
CALIBRATION = 0.2  # weight of each answer's tokens in the estimate's scale


@dataclass(frozen=True)
class Pause:
    """A pause the server asked for: every start of the judge waits `until`."""

    until: float
    seconds: float
    new: bool  # it began now (not an existing pause reached again)
    # False: longer than the call may still wait for the rate limit, so not taken (the
    # call stops instead of waiting years on a server's word).
    kept: bool = True


class RateControl:
    """The pace of one judge's calls (see the module's doc). All times in seconds.

    Args:
        ceiling: Calls in flight at most (`max_concurrent_requests`).
        longest: The longest pause taken (the judge's `rate_wait_limit`).
    """

    def __init__(self, ceiling: int, longest: float = math.inf) -> None:
        self.ceiling = max(1, ceiling)
        self.longest = longest
        self.window = float(self.ceiling)
        self.rate: float | None = None  # starts per second; None: not paced
        self.request_cap: float | None = None  # MARGIN of the stated limit, per second
        self.stated_requests = 0.0  # the stated limit, per minute
        self.token_rate: float | None = None
        self.tokens_limit: float | None = None  # per minute, as stated
        self.quota = False  # the limits were a quota in an error body (Gemini), not headers
        self.knee: float | None = None
        self.epoch = 0
        self.paused_until = 0.0
        self.held_seconds = 0.0  # time the starts were held by pauses, in total
        self.limited = 0  # 429s met
        self.token_scale = 1.0
        self.next_start = 0.0  # the request pacer's next free moment
        self._next_tokens = 0.0  # the token pacer's
        self._quiet_until = 0.0
        # The latest answers' times: the answers per second before a 429.
        self._answers: deque[float] = deque(maxlen=ANSWERS_KEPT)

    # When a call may start

    def unbound(self, now: float, in_flight: int) -> bool:
        """Whether a call may start now whatever its tokens: no pace, no pause, room."""
        return (self.rate is None and self.token_rate is None and in_flight < self.window
                and now >= self.paused_until)

    def start_at(self, now: float, in_flight: int, tokens: float) -> float | None:
        """The earliest moment a call of `tokens` may start; None while the window is full."""
        if in_flight >= max(1, int(self.window)):
            return None
        at = max(now, self.paused_until)
        if self.rate is not None:
            at = max(at, self.next_start)
        if self.token_rate is not None and tokens > 0:
            at = max(at, self._next_tokens)
        return at

    def started(self, now: float, tokens: float) -> int:
        """A call started now; returns the epoch it belongs to."""
        if self.rate is not None:
            # A start the event loop made a little late is caught up on: lateness must not
            # add up into a slower pace. Only a little: a start after an idle spell or a
            # pause that took a whole interval back would bring a second start with it at
            # once, and a strict limiter (n requests in any second) answers the third 429.
            late = now - self.next_start
            self.next_start = (self.next_start if 0 <= late <= CATCH_UP else now) + (
                1.0 / self.rate)
        if self.token_rate is not None and tokens > 0:
            self._next_tokens = max(self._next_tokens, now) + (
                tokens * self.token_scale / self.token_rate)
        return self.epoch

    # What the answers say

    def answered(self, now: float, facts: RateFacts | None, tokens: float = 0.0,
                 used: float = 0.0) -> Pause | None:
        """A call was answered; `tokens` its estimate, `used` what it really took."""
        self._answers.append(now)
        if self.window < self.ceiling:
            self.window = min(float(self.ceiling), self.window + 1.0 / self.window)
        if tokens > 0 and used > 0 and self.token_rate is not None:
            ratio = min(max(used / tokens, 0.1), 10.0)
            self.token_scale += CALIBRATION * (ratio - self.token_scale)
        if facts is None:
            if self.rate is None:
                return None
        else:
            self._learn(facts)
        if self.rate is not None:
            slow = self.knee is not None and self.rate >= KNEE * self.knee
            self.rate += SLOW_GROWTH if slow else FAST_GROWTH
            if self.request_cap is not None:
                self.rate = min(self.rate, self.request_cap)
        return self._hold(now, facts, tokens) if facts is not None else None

    def limited_by(self, now: float, epoch: int, facts: RateFacts | None, tokens: float,
                   jitter: float, left: float = math.inf) -> Pause | None:
        """A 429 for a call of `epoch`; `jitter` in [0, 1) spreads the pause's end.

        A wait longer than `left` (what the call may still wait) is not taken: the pause
        returned is not `kept`.
        """
        self.limited += 1
        if facts is not None:
            self._learn(facts)
        cut = epoch == self.epoch and now >= self._quiet_until
        if cut:
            self.epoch += 1
            blind = (self.rate is None and self.request_cap is None and self.window > 1
                     and not self._answered_lately(now) and not self._interval(facts))
            self.window = max(1.0, self.window * WINDOW_CUT)
            if not blind:
                self._cut_rate(now, facts)
        wait = self._wait(facts, tokens)
        if wait is not None and wait > min(left, self.longest):
            pause: Pause | None = Pause(now + wait, wait, new=False, kept=False)
        else:
            pause = None if wait is None else self._pause(now, min(
                wait + min(JITTER_SHARE * wait, JITTER_MAX) * jitter, left, self.longest))
        if cut:
            self._quiet_until = max(now, self.paused_until) + QUIET
        return pause

    def _cut_rate(self, now: float, facts: RateFacts | None) -> None:
        base = self.rate if self.rate is not None else self._throughput(now, facts)
        if self.request_cap is None:
            rate = base * RATE_CUT
        elif self.rate is None:  # the first 429: go at the stated limit
            rate = self.request_cap
        else:
            rate = min(base * STATED_CUT, self.request_cap)
        self.knee = base
        self.rate = max(MIN_RATE, rate)

    def unfit(self, tokens: float) -> float | None:
        """The stated tokens per minute when they are fewer than one call of `tokens` needs."""
        limit = self.tokens_limit
        return limit if limit is not None and tokens * self.token_scale > limit else None

    def current_rate(self, now: float) -> float:
        """Starts per second now: the pace if paced, else the answers per second lately."""
        return self.rate if self.rate is not None else self._throughput(now, None)

    # Inside

    def _learn(self, facts: RateFacts) -> None:
        if facts.requests_limit or facts.tokens_limit:
            self.quota = facts.quota
        if facts.requests_limit:
            self.stated_requests = facts.requests_limit
            self.request_cap = MARGIN * facts.requests_limit / 60.0
            if self.rate is not None:
                self.rate = min(self.rate, self.request_cap)
        if facts.tokens_limit:
            self.tokens_limit = facts.tokens_limit
            self.token_rate = MARGIN * facts.tokens_limit / 60.0

    @staticmethod
    def _interval(facts: RateFacts | None) -> bool:
        """Whether a 429's `retry-after` reads as the interval between calls the limit allows.

        A token bucket asks for its refill interval, a fraction of a second or so; a longer
        wait is the reset of a window, after which the whole limit is back.
        """
        wait = facts.retry_after if facts is not None else None
        return wait is not None and 0 < wait <= INTERVAL_WAIT

    def _answered_lately(self, now: float) -> bool:
        return bool(self._answers) and self._answers[-1] >= now - THROUGHPUT_SPAN

    def _throughput(self, now: float, facts: RateFacts | None) -> float:
        answers = [t for t in self._answers if t >= now - THROUGHPUT_SPAN]
        if answers:
            return len(answers) / max(now - answers[0], 1.0)
        wait = facts.retry_after if facts is not None else None
        return 1.0 / wait if wait else 1.0

    def _wait(self, facts: RateFacts | None, tokens: float) -> float | None:
        """Seconds to come back after a 429: the server's time, else the exhausted reset."""
        if facts is None:
            return None
        if facts.retry_after is not None:
            return facts.retry_after
        waits = []
        if facts.requests_remaining == 0 and facts.requests_reset is not None:
            one = 60.0 / facts.requests_limit if facts.requests_limit else facts.requests_reset
            waits.append(min(facts.requests_reset, one))
        if facts.tokens_reset is not None and (
                facts.tokens_remaining is None or facts.tokens_remaining < tokens):
            need = tokens * self.token_scale - (facts.tokens_remaining or 0.0)
            one = (need * 60.0 / facts.tokens_limit if facts.tokens_limit
                   else facts.tokens_reset)
            waits.append(min(facts.tokens_reset, max(one, 0.0)))
        if facts.requests_reset is not None and not waits and facts.requests_remaining is None:
            waits.append(facts.requests_reset)
        return max(waits) if waits else None

    def _hold(self, now: float, facts: RateFacts, tokens: float) -> Pause | None:
        """Before the 429: an answer saying nothing remains holds starts for one call's worth."""
        waits = []
        if facts.requests_remaining == 0 and facts.requests_reset is not None:
            one = 60.0 / facts.requests_limit if facts.requests_limit else facts.requests_reset
            waits.append(min(facts.requests_reset, one))
        if (facts.tokens_remaining is not None and facts.tokens_reset is not None
                and facts.tokens_limit and facts.tokens_remaining < tokens * self.token_scale):
            need = tokens * self.token_scale - facts.tokens_remaining
            waits.append(min(facts.tokens_reset, need * 60.0 / facts.tokens_limit))
        # A hold longer than any call may wait is not taken: the next call's 429, if any,
        # says how long the server means.
        if not waits or not 0 < max(waits) <= self.longest:
            return None
        return self._pause(now, max(waits))

    def _pause(self, now: float, seconds: float) -> Pause | None:
        until = now + seconds
        if until <= self.paused_until:
            return Pause(self.paused_until, self.paused_until - now, False)
        self.held_seconds += until - max(now, self.paused_until)
        new = self.paused_until <= now
        self.paused_until = until
        return Pause(until, seconds, new)
