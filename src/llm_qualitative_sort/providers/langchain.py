"""`LangChainProvider`: any LangChain chat model as a judge, with structured output.

Who retries: this provider never retries a failed *request*; it classifies the failure
(`TransientProviderError` with the server's Retry-After, or `PermanentProviderError`) and
the engine retries with the sorter's `retry_policy`. Retrying inside the client as well
would multiply the attempts (6 engine attempts x 3 SDK attempts = 18 calls to a server that
is down). It does ask again, `reasks` times, when an answer came back without a usable
verdict (unparseable or refused).

A verdict and a score take the same request path (`LangChainProvider._ask`: structured
output, the next method when one is refused, again without log-probabilities when those
are refused, the failures classified for the engine's retries), with their own schema and
prompt. The chat model is kept per event loop with its runnables (each asked as its two
halves where it can be) and its log-probability twin. An answer keeps the raw message
(without its headers or log-probabilities, with the key masked), the tokens, and what the
log-probabilities say; an endpoint is shown without anything that could carry a credential.
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.rate_limiters import InMemoryRateLimiter
from pydantic import SecretStr

from llm_qualitative_sort.errors import InputError, PermanentProviderError
from llm_qualitative_sort.prompts._comparison import (
    PROMPT_VERSION,
    TieVerdict,
    Verdict,
    build_messages,
    parse_text_verdict,
    verdict_schema,
)
from llm_qualitative_sort.prompts._ranking import (
    own_prompt_refusal,
    parse_text_ranking,
    ranking_messages,
    ranking_schema,
    read_ranking,
)
from llm_qualitative_sort.prompts._score import (
    ScoreAnswer,
    parse_text_score,
    score_answer,
    score_schema,
)
from llm_qualitative_sort.prompts._score_messages import build_score_messages
from llm_qualitative_sort.providers._answer import (
    AskedAnswer,
    RankedAnswer,
    ScoredAnswer,
    answers_result,
    ranked_result,
    read_ranked,
    read_scored,
    read_verdict,
    scored_result,
    validated_answer,
)
from llm_qualitative_sort.providers._failures import (
    classify,
    is_format_rejection,
    is_logprob_refusal,
    redact,
    status_of,
)
from llm_qualitative_sort.providers._knobs import check_knobs
from llm_qualitative_sort.providers._rate_signals import report_headers
from llm_qualitative_sort.providers._structured import Asking, split
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.logprobs import message_tokens, with_logprobs, without_logprobs
from llm_qualitative_sort.providers.questions import Compare, Question, Rank, Request, Score
from llm_qualitative_sort.rating.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult, RankingResult

Method = Literal["json_schema", "function_calling", "json_mode", "text"]
ALL_METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode", "text")
ChatModelSource = BaseChatModel | Callable[[], BaseChatModel]

# An answer as one request gives it: a verdict (`AskedAnswer`), a label (`ScoredAnswer`) or
# an order (`RankedAnswer`); each keeps the raw answer in `raw`.
Answered = TypeVar("Answered", bound=Any)

_MODEL_FIELDS = ("model_name", "model", "deployment_name", "azure_deployment")
_URL_FIELDS = ("openai_api_base", "base_url", "azure_endpoint", "anthropic_api_url")
_KEY_FIELDS = ("openai_api_key", "google_api_key", "anthropic_api_key", "api_key")


@dataclass
class _LoopState:
    chat: BaseChatModel
    runnables: dict[str, Asking] = field(default_factory=dict)
    # The chat model that asks for log-probabilities (None: it cannot ask), built once.
    logprob_chat: BaseChatModel | None = None


def _strict(chat: BaseChatModel, method: Method) -> dict[str, Any]:
    # OpenAI's strict mode guarantees schema-shaped answers (JSON mode has no schema to be
    # strict about); other clients may not take the argument at all.
    is_openai = type(chat).__module__.startswith("langchain_openai")
    return {"strict": True} if is_openai and method != "json_mode" else {}


def _field_text(model: BaseChatModel | None, names: Sequence[str]) -> str | None:
    for name in names:
        value = getattr(model, name, None)
        if isinstance(value, str) and value:
            return value
    return None


def _field_secret(model: BaseChatModel | None) -> str | None:
    for name in _KEY_FIELDS:
        value = getattr(model, name, None)
        if isinstance(value, SecretStr):
            return value.get_secret_value()
    return None


def _safe_url(url: str) -> str:
    """`url` without user info, query or fragment, where a key could hide (`?key=...`)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _stored_reply(method: Method, message: AIMessage) -> dict[str, Any]:
    """What a call keeps of the model's message (its raw response): a verdict's or a score's."""
    return {
        "method": method,
        "content": message.content,
        "tool_calls": message.tool_calls,
        "refusal": message.additional_kwargs.get("refusal"),
        "response_metadata": without_logprobs(message.response_metadata),
        "usage": dict(message.usage_metadata or {}),
    }


def _usage(reply: dict[str, Any]) -> tuple[int, int]:
    """Input and output tokens of a stored reply (`_stored_reply`)."""
    usage: dict[str, Any] = reply["usage"]
    return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))


class LangChainProvider(LLMProvider):
    """A judge on any LangChain chat model (Azure OpenAI, Anthropic, a local server, ...).

    The model answers the package's fixed prompt through `with_structured_output`. When the
    server rejects a structured-output method (HTTP 400), the next one is tried, in the
    order of `methods` (json_schema, function calling, JSON mode, then a strict parse of
    plain text), and the one that worked is kept for the provider's later calls.

    Args:
        chat_model: The chat model, or a factory that builds one. A factory is called once
            per event loop: clients such as `ChatOpenAI` bind their HTTP connections to the
            loop they first ran on, so a provider used from several `asyncio.run()` calls
            needs one model per loop. Turn the model's own retries off (`max_retries=0`);
            the engine retries.
        model: Model name for cache keys and messages; read from the chat model if omitted.
        base_url: Endpoint for cache keys and messages; read from the chat model if omitted.
        methods: Structured-output methods to try, in order.
        reasks: How many more times to ask when an answer has no usable verdict.
        timeout: Seconds one request may take before it counts as a transient failure.
        requests_per_second: Client-side rate limit (LangChain's `InMemoryRateLimiter`): a
            hard cap, whatever the server allows.
        input_price_per_million: Price of a million input tokens, for `estimated_cost`
            (a finite number >= 0; a `ValueError` names any other).
        output_price_per_million: Price of a million output tokens (likewise).
        logprobs: Ask for log-probabilities where the client can (OpenAI, Gemini), to read
            the soft verdict `ComparisonResult.probability`; a server that refuses them is
            asked again without, and not asked for them again (see `providers.logprobs`).
        adaptive_rate: Pace the calls by the server's 429s and rate-limit headers (fewer
            calls in flight and per second after a 429, one shared pause when the server
            says when to come back, tokens per minute when it states a token limit).
        rate_wait_limit: Seconds one call may wait, in total, for the rate limit (pauses
            and pace); a longer wait stops the run (10 minutes by default).

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_core.messages import AIMessage
        >>> fake = GenericFakeChatModel(
        ...     messages=iter([AIMessage('{"reasoning": "B is clearer.", "winner": "B"}')]))
        >>> judge = LangChainProvider(fake, model="fake", methods=["text"])
        >>> import asyncio
        >>> asyncio.run(judge.compare("text one", "text two", "clarity")).winner
        'B'
    """

    def __init__(
        self,
        chat_model: ChatModelSource,
        *,
        model: str | None = None,
        base_url: str | None = None,
        methods: Sequence[Method] = ALL_METHODS,
        reasks: int = 1,
        timeout: float | None = 120.0,
        requests_per_second: float | None = None,
        input_price_per_million: float | None = None,
        output_price_per_million: float | None = None,
        logprobs: bool = True,
        adaptive_rate: bool = True,
        rate_wait_limit: float = 600.0,
    ) -> None:
        if not methods or any(m not in ALL_METHODS for m in methods):
            raise InputError(f"methods must be a non-empty subset of {ALL_METHODS}, got {methods}")
        check_knobs(type(self).__name__, reasks=reasks, timeout=timeout,
                    requests_per_second=requests_per_second,
                    input_price_per_million=input_price_per_million,
                    output_price_per_million=output_price_per_million, logprobs=logprobs,
                    adaptive_rate=adaptive_rate, rate_wait_limit=rate_wait_limit)
        instance = chat_model if isinstance(chat_model, BaseChatModel) else None
        super().__init__(
            api_key=_field_secret(instance),
            base_url=base_url or _field_text(instance, _URL_FIELDS),
            model=model or _field_text(instance, _MODEL_FIELDS) or "unknown-model",
        )
        self._source = chat_model
        self.methods: tuple[Method, ...] = tuple(methods)
        self._method_index = 0
        self.reasks = reasks
        self.timeout = timeout
        self._limiter = (
            InMemoryRateLimiter(requests_per_second=requests_per_second, check_every_n_seconds=0.01)
            if requests_per_second
            else None
        )
        self.prices = (input_price_per_million, output_price_per_million)
        self.adaptive_rate, self.rate_wait_limit = adaptive_rate, float(rate_wait_limit)
        # Turned off for good when the server refuses them (per provider, so per model).
        self.logprobs = logprobs
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def asks_logprobs(self) -> bool:
        """Whether the next call asks for log-probabilities (False once a server refused)."""
        return bool(self.logprobs)

    @property
    def model_identity(self) -> str:
        """Class, model, endpoint (without credentials or query) and prompt version."""
        endpoint = f"@{_safe_url(self.base_url)}" if self.base_url else ""
        return f"{type(self).__name__}:{self.model}{endpoint}#prompt{PROMPT_VERSION}"

    @property
    def method(self) -> Method:
        """The structured-output method currently in use (advances when one is rejected)."""
        return self.methods[self._method_index]

    def estimate_cost(self, input_tokens: int, output_tokens: int) -> float | None:
        """The price of the given token counts, or None without prices."""
        price_in, price_out = self.prices
        if price_in is None and price_out is None:
            return None
        return (input_tokens * (price_in or 0.0) + output_tokens * (price_out or 0.0)) / 1e6

    def answers(self, question: type[Question], *, ties: bool = False) -> bool:
        """Comparisons (with or without a tie), scores and rankings: every question."""
        del ties  # each prompt and schema has its form with ties
        return question in (Compare, Score, Rank)

    async def answer(self, request: Request
                     ) -> ComparisonResult | PointwiseResult | RankingResult:
        """The answer to one request: a verdict, a label or an order, asked as its question.

        Every question takes the same path: the structured-output methods in turn, asked
        again (`reasks`) while the answer has no usable verdict, label or order. A
        request's `ties` offers a tie in a comparison and shared places in a ranking.

        Raises:
            TransientProviderError: A failure worth retrying.
            PermanentProviderError: A failure that retrying cannot fix; a ranking call in
                a run that asks its comparisons with its own prompt template (before any
                request is sent).
        """
        question = request.question
        if isinstance(question, Compare):
            return await self._compare(question.first, question.second, request.criteria,
                                       ties=request.ties)
        if isinstance(question, Score):
            return await self._score(question.text, request.criteria, question.scale,
                                     question.inverse)
        return await self._rank(question, request.criteria, ties=request.ties)

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Ask the model; ask again (up to `reasks` times) while it gives no verdict."""
        return await self._compare(item_a, item_b, criteria, ties=False)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int, ties: bool = False
    ) -> ComparisonResult:
        """As `compare`; with `ties`, the prompt and the schema offer "tie" as an answer."""
        if not ties:
            return await super().compare_call(item_a, item_b, criteria, repetition=repetition)
        return await self._compare(item_a, item_b, criteria, ties=True)

    async def _compare(self, item_a: str, item_b: str, criteria: str, *, ties: bool
                       ) -> ComparisonResult:
        answers: list[AskedAnswer] = []
        for _ in range(1 + self.reasks):
            messages = build_messages(item_a, item_b, criteria, ties=ties)
            answers.append(await self._ask(functools.partial(
                self._invoke_verdict, messages=messages, ties=ties)))
            if answers[-1].verdict is not None:
                break
        return answers_result(answers)

    async def score_call(self, text: str, criteria: str, *, scale: Scale,
                         inverse: bool = False, repetition: int = 0) -> PointwiseResult:
        """Score one text alone: the judge answers `{"reason", "label"}`.

        The label's log-probabilities give its distribution where the server sends them;
        asked again (`reasks`) while the answer has no label of the scale.
        """
        del repetition  # a real LLM samples afresh on every call
        return await self._score(text, criteria, scale, inverse)

    async def _score(self, text: str, criteria: str, scale: Scale, inverse: bool
                     ) -> PointwiseResult:
        answers: list[ScoredAnswer] = []
        for _ in range(1 + self.reasks):
            messages = build_score_messages(text, criteria, scale, inverse)
            answers.append(await self._ask(functools.partial(
                self._invoke_score, messages=messages, scale=scale)))
            if answers[-1].answer is not None:
                break
        return scored_result(answers)

    async def _rank(self, question: Rank, criteria: str, *, ties: bool) -> RankingResult:
        refusal = own_prompt_refusal()
        if refusal:
            raise PermanentProviderError(f"{self!r} asks no ranking call here: {refusal}")
        answers: list[RankedAnswer] = []
        for _ in range(1 + self.reasks):
            messages = ranking_messages(question.texts, question.labels, criteria, ties=ties)
            answers.append(await self._ask(functools.partial(
                self._invoke_ranking, messages=messages, labels=question.labels, ties=ties)))
            if answers[-1].order is not None:
                break
        return ranked_result(answers)

    async def _invoke_verdict(self, method: Method, *, messages: list[BaseMessage],
                              ties: bool) -> AskedAnswer:
        """Ask the chat model with `method` for a verdict on `messages`."""
        message, output = await self._ask_model(self._runnable(method, ties), messages, method)
        if output is None:
            verdict = parse_text_verdict(message.text, ties)
            problem = "" if verdict else "the answer is not a JSON verdict"
        else:
            verdict, problem = validated_answer(output["parsed"], output["parsing_error"], ties)
        return self._verdict_answer(method, message, verdict, problem)

    def _verdict_answer(self, method: Method, message: AIMessage,
                        verdict: Verdict | TieVerdict | None, problem: str) -> AskedAnswer:
        raw = _stored_reply(method, message)
        return read_verdict(verdict, problem, raw, message_tokens(message), self._secret(),
                            _usage(raw))

    async def _invoke_score(self, method: Method, *, messages: list[BaseMessage],
                            scale: Scale) -> ScoredAnswer:
        """Ask the chat model with `method` for a label of `scale` on `messages`."""
        message, output = await self._ask_model(self._runnable(method, score=scale), messages,
                                                method)
        if output is None:
            answer = parse_text_score(message.text, scale)
            problem = "" if answer else "the answer is not a JSON label"
        else:
            error = output["parsing_error"]
            answer, problem = score_answer(output["parsed"], scale)
            if output["parsed"] is None and error:
                problem = f"no parsable answer ({error})"
        return self._scored_answer(method, message, answer, problem, scale)

    def _scored_answer(self, method: Method, message: AIMessage, answer: ScoreAnswer | None,
                       problem: str, scale: Scale) -> ScoredAnswer:
        raw = _stored_reply(method, message)
        return read_scored(answer, problem, raw, message_tokens(message), scale, self._secret(),
                           _usage(raw))

    async def _invoke_ranking(self, method: Method, *, messages: list[BaseMessage],
                              labels: tuple[str, ...], ties: bool) -> RankedAnswer:
        """Ask the chat model with `method` for an order of `labels` on `messages`."""
        runnable = self._runnable(method, ties, ranking=labels)
        message, output = await self._ask_model(runnable, messages, method)
        if output is None:
            order, reasoning, problem = parse_text_ranking(message.text, labels, ties)
        else:
            order, reasoning, problem = read_ranking(output["parsed"], labels, ties)
            if output["parsed"] is None and output["parsing_error"]:
                problem = f"no parsable order ({output['parsing_error']})"
        raw = _stored_reply(method, message)
        return read_ranked(order, reasoning, problem, raw, self._secret(), _usage(raw))

    async def _ask_model(self, runnable: Asking, messages: list[BaseMessage],
                         method: Method) -> tuple[AIMessage, Any]:
        """`messages` through the rate limiter and deadline to `runnable`.

        Returns the model's message and the structured output (None for `method="text"`). The
        message's rate-limit headers are left for the engine here, for every kind of call; they
        are never stored (they name the organization).
        """
        if self._limiter is not None:
            await self._limiter.aacquire()
        async with asyncio.timeout(self.timeout):
            output = await runnable.ainvoke(messages)
        if method == "text":
            message, structured = cast(AIMessage, output), None
        else:
            message, structured = output["raw"], output
        report_headers(message.response_metadata.get("headers"))
        return message, structured

    async def _ask(self, invoke: Callable[[Method], Awaitable[Answered]]) -> Answered:
        """`invoke(method)` with the method in use.

        The next method is asked at once when the server refuses a format, and the same
        again without log-probabilities when it refuses those.
        """
        rejected: list[dict[str, Any]] = []
        while True:
            index = self._method_index
            asked_logprobs = self.logprobs
            try:
                answer = await invoke(self.methods[index])
            except Exception as exc:
                if asked_logprobs and is_logprob_refusal(exc):
                    # Not an answer and not a failure: asked again at once without them.
                    rejected.append(self._rejection("logprobs", exc))
                    self.logprobs = False
                    continue
                if is_format_rejection(exc) and index + 1 < len(self.methods):
                    # A refusal of the format is not an answer (nothing to pay, nothing to
                    # retry as is): the next method is asked at once. Concurrent calls may
                    # see the same refusal: advance from the method that was tried, never
                    # past one that nobody has tried yet.
                    rejected.append(self._rejection(self.methods[index], exc))
                    self._method_index = max(self._method_index, index + 1)
                    continue
                error = classify(exc, where=self._where(), secret=self._secret())
                if error is None:
                    raise
                raise error from None  # the client's exception may quote request details
            if rejected:  # kept with the answer, so the audit shows why the method changed
                answer.raw["rejected"] = rejected
            return answer

    def _rejection(self, method: str, exc: BaseException) -> dict[str, Any]:
        detail = redact(" ".join(f"{type(exc).__name__}: {exc}".split()), self._secret())
        return {"method": method, "status": status_of(exc), "error": detail[:300]}

    def _runnable(self, method: Method, ties: bool = False, score: Scale | None = None,
                  ranking: tuple[str, ...] | None = None) -> Asking:
        """The chat model asking with `method`: a verdict, a label of `score` or an order."""
        state = self._loop_state()
        chat = state.logprob_chat if self.logprobs else None
        name = (f"{method}+ties" if ties else method) + ("+logprobs" if chat else "")
        if score is not None:
            name += f"+score:{score.digest}"
        if ranking is not None:
            name += f"+rank:{len(ranking)}"
        chat = chat or state.chat
        if name not in state.runnables:
            if method == "text":
                state.runnables[name] = chat
            else:
                if ranking is not None:
                    schema = ranking_schema(ranking, ties)
                else:
                    schema = verdict_schema(ties) if score is None else score_schema(score)
                state.runnables[name] = split(chat.with_structured_output(
                    schema, method=method, include_raw=True, **_strict(chat, method)
                ))
        return state.runnables[name]

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            source = self._source
            state = _LoopState(source if isinstance(source, BaseChatModel) else source())
            state.logprob_chat = with_logprobs(state.chat) if self.logprobs else None
            self._loops[loop] = state
            if self._api_key is None:
                # Built by a factory: only now can we learn the key to mask in answers.
                key = _field_secret(state.chat)
                self._api_key = SecretStr(key) if key else None
        return state

    def __repr__(self) -> str:
        url = _safe_url(self.base_url) if self.base_url else None
        return f"{type(self).__name__}(model={self.model!r}, base_url={url!r})"

    def _secret(self) -> str | None:
        return self._api_key.get_secret_value() if self._api_key is not None else None

    def _where(self) -> str:
        endpoint = f" at {_safe_url(self.base_url)}" if self.base_url else ""
        return f"model {self.model!r}{endpoint}"
