"""`LangChainProvider`: any LangChain chat model as a judge, with structured output.

Who retries: this provider never retries a failed *request*; it classifies the failure
(`TransientProviderError` with the server's Retry-After, or `PermanentProviderError`) and
the engine retries with the sorter's `retry_policy`. Retrying inside the client as well
would multiply the attempts (6 engine attempts x 3 SDK attempts = 18 calls to a server that
is down). It does ask again, `reasks` times, when an answer came back without a usable
verdict (unparseable or refused).
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.rate_limiters import InMemoryRateLimiter
from pydantic import SecretStr

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.prompts._comparison import PROMPT_VERSION, build_messages, verdict_schema
from llm_qualitative_sort.prompts._score import score_schema
from llm_qualitative_sort.providers._answer import _Answer, _result
from llm_qualitative_sort.providers._failures import (
    classify,
    is_format_rejection,
    redact,
    status_of,
)
from llm_qualitative_sort.providers._knobs import check_knobs
from llm_qualitative_sort.providers._langchain_chat import (
    _MODEL_FIELDS,
    _URL_FIELDS,
    ALL_METHODS,
    ChatModelSource,
    Method,
    _field_secret,
    _field_text,
    _LoopState,
    _safe_url,
    _strict,
)
from llm_qualitative_sort.providers._langchain_score import score_with
from llm_qualitative_sort.providers._langchain_verdict import invoke_verdict
from llm_qualitative_sort.providers._logprob_request import is_logprob_refusal, with_logprobs
from llm_qualitative_sort.providers._structured import Asking, split
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.scoring import PointwiseResult, Scale
from llm_qualitative_sort.verdicts import ComparisonResult

# An answer as one request gives it: a verdict (`_Answer`) or a label (`ScoredAnswer`); both keep
# the raw answer in `raw`.
Answered = TypeVar("Answered", bound=Any)


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
            asked again without, and not asked for them again (see `_logprob_request`).
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
        answers: list[_Answer] = []
        for _ in range(1 + self.reasks):
            messages = build_messages(item_a, item_b, criteria, ties=ties)
            answers.append(await self._ask(functools.partial(
                invoke_verdict, self, messages=messages, ties=ties)))
            if answers[-1].verdict is not None:
                break
        return _result(answers)

    async def score_call(self, text: str, criteria: str, *, scale: Scale,
                         inverse: bool = False, repetition: int = 0) -> PointwiseResult:
        """Score one text alone: the judge answers `{"reason", "label"}`.

        The label's log-probabilities give its distribution where the server sends them;
        asked again (`reasks`) while the answer has no label of the scale.
        """
        del repetition  # a real LLM samples afresh on every call
        return await score_with(self, text, criteria, scale, inverse)

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

    def _runnable(self, method: Method, ties: bool = False,
                  score: Scale | None = None) -> Asking:
        """The chat model asking with `method` for a verdict (or, with `score`, a label)."""
        state = self._loop_state()
        chat = state.logprob_chat if self.logprobs else None
        name = (f"{method}+ties" if ties else method) + ("+logprobs" if chat else "")
        if score is not None:
            name += f"+score:{score.digest}"
        chat = chat or state.chat
        if name not in state.runnables:
            if method == "text":
                state.runnables[name] = chat
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
