"""A structured-output runnable asked as its two halves: the chat model, then its parser.

`with_structured_output(schema, include_raw=True)` returns a chain of six runnables around
the chat model: a map that names its message `raw`, then an assignment of `parsed` (the
parser) and `parsing_error` (None), with a fallback that sets `parsed` to None and keeps
the parser's exception. Invoked asynchronously, that chain hands each plain function of it
(the item getter, the `parsing_error` lambda) to a thread of the default executor and
starts a shielded task for every start and end of each runnable: about eleven tasks and
four thread hops per call, measured at about a fifth of the CPU a call costs through the
real OpenAI and Gemini clients (see the speed page of the benchmarks).

`split` recognises that chain and keeps its two halves: the chat model (bound to the
schema, as the chain holds it) is awaited, and its message goes through the same parsing
runnable, invoked in the event loop's thread (parsers are plain, quick functions). The
result is the chain's: `{"raw", "parsed", "parsing_error"}`, with `parsed` None and the
exception kept when parsing fails, and errors of the request itself raised as they were.
A runnable of any other shape (a chat model's own `with_structured_output`, another
version of LangChain) is asked whole, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.runnables import Runnable, RunnableParallel, RunnableSequence
from langchain_core.runnables.fallbacks import RunnableWithFallbacks
from langchain_core.runnables.passthrough import RunnableAssign


class Asking(Protocol):
    """What `LangChainProvider._ask_model` awaits: a runnable, or the two halves of one."""

    async def ainvoke(self, input: Any, /) -> Any:  # noqa: A002 - LangChain's name
        ...


@dataclass(frozen=True)
class Halves:
    """The chat model bound to the schema, and the runnable that parses its message."""

    chat: Runnable[Any, Any]
    parse: Runnable[Any, Any]

    async def ainvoke(self, messages: Any, /) -> dict[str, Any]:
        raw = await self.chat.ainvoke(messages)
        try:
            parsed = self.parse.invoke({"raw": raw})
        except Exception as exc:  # the chain's fallback catches exactly these
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}


def _steps(runnable: object, *names: str) -> dict[str, Runnable[Any, Any]] | None:
    """The named branches of a map (`RunnableParallel`), when it has exactly those."""
    if isinstance(runnable, RunnableParallel) and set(runnable.steps__) == set(names):
        return dict(runnable.steps__)
    return None


def split(runnable: Runnable[Any, Any]) -> Asking:
    """`runnable`'s two halves when it is LangChain's `include_raw` chain; else itself."""
    if not isinstance(runnable, RunnableSequence) or len(runnable.steps) != 2:
        return runnable
    first, last = runnable.steps
    raw = _steps(first, "raw")
    if raw is None or not isinstance(last, RunnableWithFallbacks):
        return runnable
    if last.exception_key != "parsing_error" or last.exceptions_to_handle != (Exception,):
        return runnable
    assign = last.runnable
    branches = _steps(assign.mapper, "parsed", "parsing_error") if isinstance(
        assign, RunnableAssign) else None
    fallbacks = list(last.fallbacks)
    if branches is None or len(fallbacks) != 1 or not isinstance(fallbacks[0], RunnableAssign):
        return runnable
    if _steps(fallbacks[0].mapper, "parsed") is None:
        return runnable
    return Halves(chat=raw["raw"], parse=branches["parsed"])
