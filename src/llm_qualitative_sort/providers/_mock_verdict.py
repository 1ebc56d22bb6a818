"""How the mock answers one comparison: noisy scores, biases, a tie, a flaw, a probability.

Both texts' hidden values plus their noise (from the call's keyed generator, drawn before the
call waits), the position bias, the pair's and the item's fixed first-shown bonus, a tie when
the run allows ties and the noisy scores are closer than the tie margin, then a refused or a
confidently wrong verdict when the call draws one (`_mock_flaws`), and with `logprobs` set,
the probability the judge states (`_mock_logprobs`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.providers._mock_flaws import Flaw
from llm_qualitative_sort.providers._mock_logprobs import judged_probability, with_probability
from llm_qualitative_sort.verdicts import ComparisonResult, Side, Verdict

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.mock import MockLLMProvider

REFUSAL = "I can't help with comparing these texts, so I decline to pick one."


async def compare_with(mock: MockLLMProvider, item_a: str, item_b: str, repetition: int,
                       ties: bool) -> ComparisonResult:
    """`mock`'s verdict on one call; deterministic in (seed, texts, order, repetition)."""
    rng = mock._draws.rng(item_a, item_b, repetition)
    value_a, value_b = mock._value(item_a), mock._value(item_b)
    stddev = mock._flaws.noise_stddev(abs(value_a - value_b), mock.noise_stddev)
    noisy_a = value_a + mock._noise.draw(rng, stddev)
    noisy_b = value_b + mock._noise.draw(rng, stddev)
    biased = rng.random() < mock.position_bias
    delay = mock._delay(rng)
    mock.calls += 1
    if delay > 0:
        await asyncio.sleep(delay)
    mock._maybe_fail(item_a, item_b, repetition)
    raw: dict[str, Any] = {"a": round(noisy_a, 4), "b": round(noisy_b, 4), "biased": biased}
    bonus = mock._flaws.first_bonus(mock.seed, item_a, item_b)
    if bonus:
        noisy_a += bonus
        raw |= {"a": round(noisy_a, 4), "first_bonus": round(bonus, 4)}
    winner: Verdict = "A" if biased or noisy_a >= noisy_b else "B"
    if ties and not biased and abs(noisy_a - noisy_b) < mock.tie_margin:
        winner = "tie"
    reasoning = f"A scored {noisy_a:.2f}, B scored {noisy_b:.2f}."
    verdict = ComparisonResult(winner=winner, reasoning=reasoning, raw_response=raw)
    flaw = mock._flaws.call_flaw(mock.seed, item_a, item_b, repetition)
    verdict = verdict if flaw is None else _flawed(verdict, flaw, value_a, value_b)
    if mock.logprobs is None:
        return verdict
    stated = judged_probability(mock.logprobs, (mock.seed, item_a, item_b, repetition),
                                value_a - value_b, noisy_a - noisy_b, stddev, mock.sharpness)
    return with_probability(verdict, stated)


def _flawed(
    verdict: ComparisonResult, flaw: Flaw, value_a: float, value_b: float
) -> ComparisonResult:
    """The verdict a flawed call gives instead of the noisy one."""
    raw = verdict.raw_response
    if flaw == "refusal":
        return ComparisonResult(None, REFUSAL, raw_response=raw | {"refused": True})
    if value_a == value_b:  # no worse text to prefer
        return verdict
    worse: Side = "A" if value_a < value_b else "B"
    reasoning = f"{worse} is clearly and unmistakably the better text; there is no doubt."
    return ComparisonResult(winner=worse, reasoning=reasoning, raw_response=raw | {"wrong": True})
