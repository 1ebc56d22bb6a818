"""`GeminiChat`: langchain-google-genai's chat model, able to ask for log-probabilities.

`ChatGoogleGenerativeAI` builds the request through the google-genai client but keeps
nothing of a candidate's `logprobs_result` in the message it returns. This subclass, when
`response_logprobs` is on, sends `response_logprobs` and `logprobs` (the number of
alternatives per token) in the request's `GenerateContentConfig`, and copies
`candidates[0].logprobs_result` into the message's `response_metadata["logprobs_result"]`,
where the soft verdict is read (`providers/logprobs.py`). With it off (the default)
the call is the parent's, unchanged.

Only the asynchronous path asks (the provider calls the model asynchronously); a
synchronous call is the parent's, without log-probabilities.
"""

from __future__ import annotations

from typing import Any

from google.genai.errors import ClientError, ServerError
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_google_genai.chat_models import (
    _handle_client_error,
    _handle_server_error,
    _response_to_result,
)

from llm_qualitative_sort.providers.logprobs import TOP_LOGPROBS


class GeminiChat(ChatGoogleGenerativeAI):
    """`ChatGoogleGenerativeAI` that can ask for, and keep, the tokens' log-probabilities.

    Attributes:
        response_logprobs: Ask for the log-probabilities of the generated tokens.
        logprobs: How many alternatives to list at each token (Gemini takes 1..20).
    """

    response_logprobs: bool = False
    logprobs: int = TOP_LOGPROBS

    def __init__(self, **kwargs: Any) -> None:
        # The parent's own signature, which takes its fields' aliases (`google_api_key`).
        super().__init__(**kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not self.response_logprobs:
            return await super()._agenerate(messages, stop, run_manager, **kwargs)
        # Keywords the parent does not consume go into `GenerateContentConfig` as they are.
        kwargs.update(response_logprobs=True, logprobs=self.logprobs)
        cached = kwargs.pop("cached_content", None) or self.cached_content
        request = self._prepare_request(messages, stop=stop, cached_content=cached, **kwargs)
        try:
            response = await self.async_client.models.generate_content(**request)
        except ClientError as exc:
            _handle_client_error(exc, request)
            raise  # not reached: the handler always raises
        except ServerError as exc:
            _handle_server_error(exc)
            raise
        result = _response_to_result(response)
        candidates = response.candidates or []
        found = candidates[0].logprobs_result if candidates else None
        if found is not None and result.generations:
            metadata = result.generations[0].message.response_metadata
            metadata["logprobs_result"] = found.model_dump(mode="json", exclude_none=True)
        return result
