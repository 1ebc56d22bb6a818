"""A judge's answer to a ranking call as the providers read it, and the result it makes.

Shared by the live LangChain provider (`langchain`) and the provider batches (`_batch`),
which read orders by the same rules: an order of exactly the labels shown or none, the API
key masked out, and an answer without an order asked again (`reasks`) before the call is
given up without one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.verdicts import Ranking, RankingResult


@dataclass
class RankedAnswer:
    """One answer to a ranking call: its order (None: no usable order) and what it cost."""

    order: Ranking | None
    reasoning: str
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""


def read_ranked(order: Ranking | None, reasoning: str, problem: str, raw: dict[str, Any],
                secret: str | None, usage: tuple[int, int]) -> RankedAnswer:
    """An answer as kept: the problem in `raw`, the key masked everywhere."""
    if problem:
        raw = dict(raw, problem=problem)
    text = redact(json.dumps(raw, ensure_ascii=False, default=str), secret)
    return RankedAnswer(order, redact(reasoning, secret), json.loads(text), usage[0], usage[1],
                        redact(problem, secret))


def ranked_result(answers: Sequence[RankedAnswer]) -> RankingResult:
    """The call's result: the last answer's order, with the tokens of every answer."""
    last = answers[-1]
    tokens_in = sum(a.input_tokens for a in answers)
    tokens_out = sum(a.output_tokens for a in answers)
    raw = dict(last.raw, answers=len(answers))
    if last.order is None:
        reasoning = f"no usable order after {len(answers)} answer(s): {last.problem}"
        return RankingResult(None, reasoning, raw, tokens_in, tokens_out)
    return RankingResult(last.order, last.reasoning, raw, tokens_in, tokens_out)
