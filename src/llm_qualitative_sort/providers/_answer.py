"""What the providers read from a judge's answer, and the result each call makes of them.

An answer is a verdict (`AskedAnswer`), a label of the scale (`ScoredAnswer`) or an order
of the labels shown (`RankedAnswer`), with what it cost and, where it has none, why. The
live LangChain provider (`langchain`) and the provider batches (`_batch`) read them by the
same rules: a verdict must match the verdict schema (with "tie" only in a run that allows
ties), a label must be one of the scale's, an order must hold exactly the labels shown;
the log-probabilities give a verdict's probability or a label's distribution; the API key
is masked out everywhere. An answer without a verdict, label or order is asked again
(`reasks`) before the call is given up without one, and the call's result carries the
last answer with the tokens of all of them (`answers_result`, `scored_result`,
`ranked_result`). A batch gets the answer's JSON text rather than LangChain's parsed
output, and reads it with `read_answer`.

A leaf below both paths, so that neither imports the other for it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from llm_qualitative_sort.prompts._comparison import TieVerdict, Verdict, verdict_model
from llm_qualitative_sort.prompts._ranking import read_ranking
from llm_qualitative_sort.prompts._score import ScoreAnswer, score_answer
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers.logprobs import Token, score_distribution, verdict_probability
from llm_qualitative_sort.providers.questions import Rank, Request, Score
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult, Ranking, RankingResult


@dataclass
class AskedAnswer:
    verdict: Verdict | TieVerdict | None
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""
    # P(first-shown wins) read from the answer's log-probabilities, if it had any.
    probability: float | None = None


@dataclass
class ScoredAnswer:
    """One pointwise answer: its label and reason (None: no usable label) and what it cost."""

    answer: ScoreAnswer | None
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""
    distribution: dict[int, float] | None = None


@dataclass
class RankedAnswer:
    """One answer to a ranking call: its order (None: no usable order) and what it cost."""

    order: Ranking | None
    reasoning: str
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""


# A request's answer, read by its question: a verdict, a label or an order.
Answer = AskedAnswer | ScoredAnswer | RankedAnswer


def _masked(data: Any, secret: str | None) -> Any:
    """`data` (JSON-ready) with the API key masked out, as a server may echo it."""
    return json.loads(redact(json.dumps(data, ensure_ascii=False, default=str), secret))


def read_verdict(verdict: Verdict | TieVerdict | None, problem: str, raw: dict[str, Any],
                 tokens: Sequence[Token], secret: str | None,
                 usage: tuple[int, int]) -> AskedAnswer:
    """A verdict as kept: its probability from `tokens`, the key masked everywhere.

    Args:
        verdict: The verdict read (None: none usable).
        problem: Why there is no verdict ("" when there is one).
        raw: What to keep in `raw_response`.
        tokens: The generated tokens with their alternatives, if the answer had them.
        secret: The API key to mask.
        usage: Input and output tokens.
    """
    if problem:
        raw = dict(raw, problem=problem)
    probability, labels = verdict_probability(tokens) if verdict is not None else (None, {})
    if labels:
        raw = dict(raw, verdict_logprobs=labels)
    if verdict is not None:
        verdict = verdict.model_copy(update={"reasoning": redact(verdict.reasoning, secret)})
    return AskedAnswer(verdict, _masked(raw, secret), usage[0], usage[1],
                       redact(problem, secret), probability)


def read_scored(answer: ScoreAnswer | None, problem: str, raw: dict[str, Any],
                tokens: Sequence[Token], scale: Scale, secret: str | None,
                usage: tuple[int, int]) -> ScoredAnswer:
    """A label as kept: its distribution from `tokens`, the key masked everywhere.

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
    return ScoredAnswer(answer, _masked(raw, secret), usage[0], usage[1],
                        redact(problem, secret), distribution)


def read_ranked(order: Ranking | None, reasoning: str, problem: str, raw: dict[str, Any],
                secret: str | None, usage: tuple[int, int]) -> RankedAnswer:
    """An order as kept: the problem in `raw`, the key masked everywhere."""
    if problem:
        raw = dict(raw, problem=problem)
    return RankedAnswer(order, redact(reasoning, secret), _masked(raw, secret), usage[0],
                        usage[1], redact(problem, secret))


def validated_answer(
    parsed: Any, error: Any, ties: bool = False
) -> tuple[Verdict | TieVerdict | None, str]:
    # With `ties` (a run that allows them) "tie" is a valid winner; otherwise it is not.
    if parsed is None:
        return None, f"no parsable verdict ({error or 'empty answer'})"
    try:
        return verdict_model(ties).model_validate(parsed), ""
    except ValidationError as exc:
        return None, f"the answer does not match the verdict schema: {exc.errors()[:2]}"


def parsed_verdict(text: str | None, refusal: str, missing: Any, ties: bool
                   ) -> tuple[Verdict | TieVerdict | None, str]:
    """The verdict in a structured-output answer's text, or None and why."""
    if refusal:
        return None, f"the model refused: {refusal}"
    if not text:  # nothing to read; `missing` may say why
        return validated_answer(None, missing)
    try:
        return validated_answer(json.loads(text), None, ties)
    except ValueError as exc:
        return validated_answer(None, f"the answer is not JSON: {exc}")


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


def parsed_order(text: str | None, refusal: str, missing: Any, question: Rank, ties: bool
                 ) -> tuple[Ranking | None, str, str]:
    """The order in a structured-output answer's text, its reasoning, and what is wrong."""
    if refusal:
        return None, "", f"the model refused: {refusal}"
    if not text:
        return None, "", f"no parsable order ({missing or 'empty answer'})"
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        return None, "", f"the answer is not JSON: {exc}"
    return read_ranking(parsed, question.labels, ties)


def read_answer(request: Request, text: str | None, raw: dict[str, Any],
                usage: tuple[int, int], secret: str | None, refusal: str = "",
                logprobs: Sequence[Token] = ()) -> Answer:
    """The answer to `request` in a structured-output answer's text: a verdict, label or order.

    Read by the live path's rules for the request's question (and, for a comparison or
    a ranking, whether it offered ties).

    Args:
        request: What was asked.
        text: The answer's text (the JSON answer), or None when there is none.
        raw: What to keep in `raw_response`; its "problem", if any, says why there is no text.
        usage: Input and output tokens of the request.
        secret: The API key to mask.
        refusal: The model's refusal, if it refused.
        logprobs: The generated tokens with their alternatives, when the answer had
            them: the soft verdict (or the label distribution) is read from them.
    """
    question = request.question
    if isinstance(question, Score):
        label, problem = parsed_score(text, refusal, raw.get("problem"), question.scale)
        return read_scored(label, problem, raw, logprobs, question.scale, secret, usage)
    if isinstance(question, Rank):
        order, reasoning, problem = parsed_order(text, refusal, raw.get("problem"), question,
                                                 request.ties)
        return read_ranked(order, reasoning, problem, raw, secret, usage)
    verdict, problem = parsed_verdict(text, refusal, raw.get("problem"), request.ties)
    return read_verdict(verdict, problem, raw, logprobs, secret, usage)


def _totals(answers: Sequence[Answer]) -> tuple[dict[str, Any], int, int]:
    """The last answer's raw response (with how many answers there were), all their tokens."""
    raw = dict(answers[-1].raw, answers=len(answers))
    return raw, sum(a.input_tokens for a in answers), sum(a.output_tokens for a in answers)


def answers_result(answers: Sequence[AskedAnswer]) -> ComparisonResult:
    """The call's result: the last answer's verdict, with the tokens of every answer."""
    last = answers[-1]
    raw, tokens_in, tokens_out = _totals(answers)
    if last.verdict is not None:
        return ComparisonResult(
            last.verdict.winner, last.verdict.reasoning, raw, tokens_in, tokens_out,
            last.probability,
        )
    reasoning = f"no usable verdict after {len(answers)} answer(s): {last.problem}"
    return ComparisonResult(None, reasoning, raw, tokens_in, tokens_out)


def scored_result(answers: Sequence[ScoredAnswer]) -> PointwiseResult:
    """The call's result: the last answer's label, with the tokens of every answer."""
    last = answers[-1]
    raw, tokens_in, tokens_out = _totals(answers)
    if last.answer is None:
        reason = f"no usable label after {len(answers)} answer(s): {last.problem}"
        return PointwiseResult(None, reason, None, raw, tokens_in, tokens_out)
    return PointwiseResult(last.answer.label, last.answer.reason, last.distribution, raw,
                           tokens_in, tokens_out)


def ranked_result(answers: Sequence[RankedAnswer]) -> RankingResult:
    """The call's result: the last answer's order, with the tokens of every answer."""
    last = answers[-1]
    raw, tokens_in, tokens_out = _totals(answers)
    if last.order is None:
        reasoning = f"no usable order after {len(answers)} answer(s): {last.problem}"
        return RankingResult(None, reasoning, raw, tokens_in, tokens_out)
    return RankingResult(last.order, last.reasoning, raw, tokens_in, tokens_out)
