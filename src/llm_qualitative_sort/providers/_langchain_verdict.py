"""A LangChain judge's comparison call: the verdict, and the answer kept for the audit.

The same request path as a score (`LangChainProvider._ask`: structured output, the next
method when one is refused, again without log-probabilities when those are refused, the
failures classified for the engine's retries), with the verdict schema and the comparison
prompt. The answer keeps the raw message (without its headers or log-probabilities, with
the key masked), the tokens, and the soft verdict read from the log-probabilities.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from llm_qualitative_sort.prompts._comparison import TieVerdict, Verdict, parse_text_verdict
from llm_qualitative_sort.providers._answer import _Answer, _validated
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers._langchain_chat import Method, ask_model, stored_reply
from llm_qualitative_sort.providers._logprob_request import read_soft_verdict

if TYPE_CHECKING:
    from llm_qualitative_sort.providers.langchain import LangChainProvider


async def invoke_verdict(provider: LangChainProvider, method: Method, *,
                         messages: list[BaseMessage], ties: bool) -> _Answer:
    """Ask `provider`'s chat model with `method` for a verdict on `messages`."""
    message, output = await ask_model(provider, provider._runnable(method, ties), messages,
                                      method)
    if output is None:
        verdict = parse_text_verdict(message.text, ties)
        problem = "" if verdict else "the answer is not a JSON verdict"
    else:
        verdict, problem = _validated(output["parsed"], output["parsing_error"], ties)
    return _answer(provider, method, message, verdict, problem)


def _answer(
    provider: LangChainProvider, method: Method, message: AIMessage,
    verdict: Verdict | TieVerdict | None, problem: str,
) -> _Answer:
    raw = stored_reply(method, message)
    usage: dict[str, Any] = raw["usage"]
    if problem:
        raw["problem"] = problem
    probability, labels = read_soft_verdict(message) if verdict is not None else (None, {})
    if labels:
        raw["verdict_logprobs"] = labels
    if verdict is not None:
        verdict = verdict.model_copy(
            update={"reasoning": redact(verdict.reasoning, provider._secret())}
        )
    text = redact(json.dumps(raw, ensure_ascii=False, default=str), provider._secret())
    return _Answer(
        verdict,
        json.loads(text),
        int(usage.get("input_tokens", 0)),
        int(usage.get("output_tokens", 0)),
        redact(problem, provider._secret()),
        probability,
    )
