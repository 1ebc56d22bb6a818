"""A judge's pointwise answer as the providers read it, and the result it makes.

Shared by the live LangChain provider (`langchain`) and the provider batches
(`_batch`), which read labels by the same rules: the label must be one of the scale's, the
label token's log-probabilities give its distribution, the API key is masked out, and an
answer without a label is asked again (`reasks`) before the call is given up without one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llm_qualitative_sort.prompts._score import ScoreAnswer, score_answer
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers._score_logprobs import score_distribution
from llm_qualitative_sort.providers.logprobs import Token
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale


@dataclass
class ScoredAnswer:
    """One pointwise answer: its label and reason (None: no usable label) and what it cost."""

    answer: ScoreAnswer | None
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""
    distribution: dict[int, float] | None = None


def read_scored(answer: ScoreAnswer | None, problem: str, raw: dict[str, Any],
                tokens: Sequence[Token], scale: Scale, secret: str | None,
                usage: tuple[int, int]) -> ScoredAnswer:
    """An answer as kept: its distribution from `tokens`, the key masked everywhere.

    Args:
        answer: The label and reason read (None: none usable).
        problem: Why there is no answer ("" when there is one).
        raw: What to keep in `raw_response`.
        tokens: The generated tokens with their alternatives, if the answer had them.
        scale: The run's scale.
        secret: The API key to mask.
        usage: Input and output tokens.
    """
    if problem:
        raw = dict(raw, problem=problem)
    distribution = None
    if answer is not None:
        distribution, labels = score_distribution(tokens, scale)
        if labels:
            raw = dict(raw, label_logprobs=labels)
        answer = answer.model_copy(update={"reason": redact(answer.reason, secret)})
    text = redact(json.dumps(raw, ensure_ascii=False, default=str), secret)
    return ScoredAnswer(answer, json.loads(text), usage[0], usage[1], redact(problem, secret),
                        distribution)


def parsed_score(text: str | None, refusal: str, missing: Any, scale: Scale
                 ) -> tuple[ScoreAnswer | None, str]:
    """The label in a structured-output answer's text, or None and why.

    Example:
        >>> parsed_score('{"reason": "ok", "label": 7}', "", None, Scale.parse(None))[1]
        'label 7 is not on the scale [1, 2, 3, 4]'
    """
    if refusal:
        return None, f"the model refused: {refusal}"
    if not text:
        return None, f"no parsable answer ({missing or 'empty answer'})"
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        return None, f"the answer is not JSON: {exc}"
    return score_answer(parsed, scale)


def scored_result(answers: Sequence[ScoredAnswer]) -> PointwiseResult:
    """The call's result from its answers, the last one's label (tokens of all of them)."""
    last = answers[-1]
    tokens_in = sum(a.input_tokens for a in answers)
    tokens_out = sum(a.output_tokens for a in answers)
    raw = dict(last.raw, answers=len(answers))
    if last.answer is None:
        reason = f"no usable label after {len(answers)} answer(s): {last.problem}"
        return PointwiseResult(None, reason, None, raw, tokens_in, tokens_out)
    return PointwiseResult(last.answer.label, last.answer.reason, last.distribution, raw,
                           tokens_in, tokens_out)
