"""A LangChain judge's pointwise call: the label and reason, the label's distribution.

The same request path as a verdict (`LangChainProvider._ask`: structured output, the next
method when one is refused, again without log-probabilities when those are refused, the
failures classified for the engine's retries), with the score schema and the score prompt.
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import AIMessage, BaseMessage

from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers._logprob_request import message_tokens, without_logprobs
from llm_qualitative_sort.providers._score_logprobs import score_logprobs
from llm_qualitative_sort.providers._score_messages import build_score_messages
from llm_qualitative_sort.providers._score_prompt import (
    ScoreAnswer,
    parse_text_score,
    score_answer,
)
from llm_qualitative_sort.scoring import PointwiseResult, Scale, label_distribution

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.langchain import LangChainProvider, Method


@dataclass
class _Scored:
    answer: ScoreAnswer | None
    raw: dict[str, Any]
    input_tokens: int = 0
    output_tokens: int = 0
    problem: str = ""
    distribution: dict[int, float] | None = None


async def score_with(provider: LangChainProvider, text: str, criteria: str, scale: Scale,
                     inverse: bool) -> PointwiseResult:
    """Ask `provider` to score `text`; again (its `reasks`) while no label of the scale came."""
    answers: list[_Scored] = []
    for _ in range(1 + provider.reasks):
        messages = build_score_messages(text, criteria, scale, inverse)
        answers.append(await provider._ask(functools.partial(
            _invoke, provider, messages=messages, scale=scale)))
        if answers[-1].answer is not None:
            break
    last = answers[-1]
    tokens_in = sum(a.input_tokens for a in answers)
    tokens_out = sum(a.output_tokens for a in answers)
    raw = dict(last.raw, answers=len(answers))
    if last.answer is None:
        reason = f"no usable label after {len(answers)} answer(s): {last.problem}"
        return PointwiseResult(None, reason, None, raw, tokens_in, tokens_out)
    return PointwiseResult(last.answer.label, last.answer.reason, last.distribution, raw,
                           tokens_in, tokens_out)


async def _invoke(provider: LangChainProvider, method: Method, *,
                  messages: list[BaseMessage], scale: Scale) -> _Scored:
    if provider._limiter is not None:
        await provider._limiter.aacquire()
    runnable = provider._runnable(method, score=scale)
    async with asyncio.timeout(provider.timeout):
        output = await runnable.ainvoke(messages)
    if method == "text":
        message = cast(AIMessage, output)
        answer = parse_text_score(message.text, scale)
        problem = "" if answer else "the answer is not a JSON label"
    else:
        message = output["raw"]
        error = output["parsing_error"]
        answer, problem = score_answer(output["parsed"], scale)
        if output["parsed"] is None and error:
            problem = f"no parsable answer ({error})"
    return _scored(provider, method, message, answer, problem, scale)


def _scored(provider: LangChainProvider, method: Method, message: AIMessage,
            answer: ScoreAnswer | None, problem: str, scale: Scale) -> _Scored:
    secret = provider._secret()
    usage: dict[str, Any] = dict(message.usage_metadata or {})
    raw: dict[str, Any] = {
        "method": method,
        "content": message.content,
        "tool_calls": message.tool_calls,
        "refusal": message.additional_kwargs.get("refusal"),
        "response_metadata": without_logprobs(message.response_metadata),
        "usage": usage,
    }
    if problem:
        raw["problem"] = problem
    distribution = None
    if answer is not None:
        found = score_logprobs(message_tokens(message), scale)
        if found:
            raw["label_logprobs"] = {str(k): round(v, 6) for k, v in found.items()}
            distribution = label_distribution(found)
        answer = answer.model_copy(update={"reason": redact(answer.reason, secret)})
    text = redact(json.dumps(raw, ensure_ascii=False, default=str), secret)
    return _Scored(answer, json.loads(text), int(usage.get("input_tokens", 0)),
                   int(usage.get("output_tokens", 0)), redact(problem, secret), distribution)
