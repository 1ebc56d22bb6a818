"""Gemini batch mode through the official `google-genai` client.

A round becomes one batch of inlined `generateContent` requests (the live path's prompt and
JSON output against the schema of each request's question, log-probabilities asked for as
the live call asks),
each labelled with its request id in `metadata`; the batch's display name is its tag, so a
batch whose name was never recorded can be found again by listing. Results come back inline,
in the order of the requests. Inline input is limited to 20 MB, so a larger round is split
into several batches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.providers._batch import (
    BatchClient,
    BatchOptions,
    BatchRequest,
    BatchStatus,
    Outcome,
    Phase,
    newest_tagged,
    request_prompt,
)
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers.logprobs import TOP_LOGPROBS, gemini_tokens
from llm_qualitative_sort.providers.questions import Request

if TYPE_CHECKING:
    from google.genai.client import AsyncClient
    from google.genai.types import BatchJob, GenerateContentResponse, InlinedResponse

_PHASES: dict[str, Phase] = {
    "JOB_STATE_SUCCEEDED": "ended",
    "JOB_STATE_PARTIALLY_SUCCEEDED": "ended",
    "JOB_STATE_EXPIRED": "ended",
    "JOB_STATE_CANCELLED": "ended",
    "JOB_STATE_FAILED": "rejected",
}


class GeminiBatchClient(BatchClient):
    """Batches of `generateContent` requests on the Gemini API.

    Args:
        options: Waiting and pricing settings.
        model: Model name.
        secret: The API key.
        root: The endpoint without its version (`https://generativelanguage.googleapis.com`).
        version: The API version (`v1beta`).
        timeout: Seconds one HTTP request may take.
    """

    max_requests = 50_000
    max_bytes = 19_000_000  # inline input is limited to 20 MB

    def __init__(
        self,
        options: BatchOptions,
        model: str,
        secret: str,
        root: str,
        version: str,
        timeout: float,
    ) -> None:
        super().__init__(options, model, secret)
        self.root, self.version, self.timeout = root, version, timeout
        self._client: AsyncClient | None = None

    def _api(self) -> AsyncClient:
        # Built on first use, inside the event loop that uses it (see `PerLoop`).
        if self._client is None:
            from google import genai
            from google.genai import types

            options = types.HttpOptions(
                base_url=self.root, api_version=self.version, timeout=int(self.timeout * 1000)
            )
            self._client = genai.Client(api_key=self.secret, http_options=options).aio
        return self._client

    async def submit(self, requests: Sequence[BatchRequest], tag: str) -> str:
        """Create one batch of inlined requests named `tag`."""
        inlined: list[Any] = [self._request(r) for r in requests]
        job = await self._api().batches.create(
            model=self.model, src=inlined, config={"display_name": tag}
        )
        if not job.name:
            raise RuntimeError(f"{self.where()}: the batch was created without a name")
        return job.name

    def _request(self, request: BatchRequest) -> dict[str, Any]:
        (system, user), _, schema = request_prompt(request.request)
        config: dict[str, Any] = {
            # A plain str: google-genai turns langchain's `TextAccessor` into an empty Content.
            "system_instruction": str(system.text),
            "response_mime_type": "application/json",
            "response_json_schema": schema,
        }
        if self.logprobs:
            config |= {"response_logprobs": True, "logprobs": TOP_LOGPROBS}
        return {
            "contents": [{"role": "user", "parts": [{"text": str(user.text)}]}],
            "metadata": {"request": request.request_id},
            "config": config,
        }

    async def find(self, tag: str) -> str | None:
        """Look through the newest batches for one named `tag`."""
        return await newest_tagged(
            await self._api().batches.list(config={"page_size": 100}),
            lambda job: job.name if job.display_name == tag and job.name else None)

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state; Gemini counts requests only once the batch has ended."""
        from google.genai import errors

        try:
            job = await self._api().batches.get(name=batch_id)
        except errors.ClientError as exc:
            if exc.code == 404:
                return BatchStatus("not found", "missing")
            raise
        state = job.state.value if job.state is not None else "JOB_STATE_UNSPECIFIED"
        responses = _responses(job)
        phase = _PHASES.get(state, "running")
        ended = phase == "ended"
        return BatchStatus(
            state=state,
            phase=phase,
            completed=sum(r.error is None for r in responses) if ended else None,
            failed=sum(r.error is not None for r in responses) if ended else None,
            message=redact(job.error.message or "", self.secret) if job.error else "",
        )

    async def results(self, batch_id: str, request_ids: Sequence[str],
                      asked: Mapping[str, Request]) -> dict[str, Outcome]:
        """The inlined responses, matched by metadata, else by position."""
        job = await self._api().batches.get(name=batch_id)
        if job.dest is not None and job.dest.file_name and not job.dest.inlined_responses:
            raise RuntimeError(f"{self.where()}: results in a file are not supported")
        responses = _responses(job)
        # Responses come in the order of the requests, but the API may drop the metadata:
        # position names a request only when every request has its response, so a partial
        # result never gives a verdict to the wrong call (its requests go out again).
        by_position = len(responses) == len(request_ids)
        outcomes: dict[str, Outcome] = {}
        for index, response in enumerate(responses):
            request_id = (response.metadata or {}).get("request")
            if request_id is None and by_position:
                request_id = request_ids[index]
            if request_id is not None and request_id in asked:
                outcomes[request_id] = self._outcome(response, batch_id, request_id,
                                                     asked[request_id])
        return outcomes

    def _outcome(self, item: InlinedResponse, batch_id: str, request_id: str,
                 request: Request) -> Outcome:
        if item.error is not None or item.response is None:
            code = item.error.code if item.error else None
            message = (item.error.message if item.error else None) or "no response"
            return self.failure(code, f"HTTP {code}", message)
        return self._answer(item.response, batch_id, request_id, request)

    def _answer(self, response: GenerateContentResponse, batch_id: str, request_id: str,
                request: Request) -> Outcome:
        candidate = response.candidates[0] if response.candidates else None
        parts = candidate.content.parts if candidate and candidate.content else None
        text = "".join(p.text for p in parts or [] if p.text) or None
        reason = candidate.finish_reason.value if candidate and candidate.finish_reason else None
        usage = response.usage_metadata
        tokens = (
            (usage.prompt_token_count or 0) if usage else 0,
            (usage.candidates_token_count or 0) if usage else 0,
        )
        raw = {
            "method": "json_schema",
            "content": text,
            "response_metadata": {"finish_reason": reason, "model_name": response.model_version},
            "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
            "batch": {"id": batch_id, "request": request_id},
        }
        blocked = text is None and reason not in (None, "STOP")
        refusal = f"no answer (finish reason {reason})" if blocked else ""
        found = candidate.logprobs_result if candidate else None
        logprobs = gemini_tokens(found.model_dump(mode="json", exclude_none=True)) if found else []
        return self.answer(request, text, raw, tokens, refusal, logprobs)


def _responses(job: BatchJob) -> list[InlinedResponse]:
    return list(job.dest.inlined_responses or []) if job.dest is not None else []
