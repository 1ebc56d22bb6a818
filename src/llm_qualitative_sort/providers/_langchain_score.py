"""A LangChain judge's pointwise call: the label and reason, the label's distribution.

The same request path as a verdict (`LangChainProvider._ask`: structured output, the next
method when one is refused, again without log-probabilities when those are refused, the
failures classified for the engine's retries), with the score schema and the score prompt.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from llm_qualitative_sort.prompts._score import (
    ScoreAnswer,
    parse_text_score,
    score_answer,
)
from llm_qualitative_sort.prompts._score_messages import build_score_messages
from llm_qualitative_sort.providers._langchain_chat import Method, ask_model, stored_reply
from llm_qualitative_sort.providers._logprob_request import message_tokens
from llm_qualitative_sort.providers._score_answer import ScoredAnswer, read_scored, scored_result
from llm_qualitative_sort.scoring import PointwiseResult, Scale

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.langchain import LangChainProvider


async def score_with(provider: LangChainProvider, text: str, criteria: str, scale: Scale,
                     inverse: bool) -> PointwiseResult:
    """Ask `provider` to score `text`; again (its `reasks`) while no label of the scale came."""
    answers: list[ScoredAnswer] = []
    for _ in range(1 + provider.reasks):
        messages = build_score_messages(text, criteria, scale, inverse)
        answers.append(await provider._ask(functools.partial(
            _invoke, provider, messages=messages, scale=scale)))
        if answers[-1].answer is not None:
            break
    return scored_result(answers)


async def _invoke(provider: LangChainProvider, method: Method, *,
                  messages: list[BaseMessage], scale: Scale) -> ScoredAnswer:
    message, output = await ask_model(provider, provider._runnable(method, score=scale),
                                      messages, method)
    if output is None:
        answer = parse_text_score(message.text, scale)
        problem = "" if answer else "the answer is not a JSON label"
    else:
        error = output["parsing_error"]
        answer, problem = score_answer(output["parsed"], scale)
        if output["parsed"] is None and error:
            problem = f"no parsable answer ({error})"
    return _scored(provider, method, message, answer, problem, scale)


def _scored(provider: LangChainProvider, method: Method, message: AIMessage,
            answer: ScoreAnswer | None, problem: str, scale: Scale) -> ScoredAnswer:
    raw = stored_reply(method, message)
    usage: dict[str, Any] = raw["usage"]
    return read_scored(answer, problem, raw, message_tokens(message), scale, provider._secret(),
                       (int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))))
