"""OpenAI's Batch API through the official `openai` client.

A round becomes one JSONL file of `/v1/chat/completions` requests (the live path's prompt
and strict JSON-schema output for each request's question, log-probabilities asked for as
the live call asks), uploaded
with `purpose="batch"` and run with a 24-hour window. The batch carries its tag in
`metadata`, so a batch whose id was never recorded can be found again by listing. Results
come in an output file and failures in an error file, matched by `custom_id`; an expired or
cancelled batch still returns what it finished.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from llm_qualitative_sort.providers._batch import (
    BatchClient,
    BatchOptions,
    BatchRequest,
    BatchStatus,
    Outcome,
    Phase,
    RequestFailure,
    newest_tagged,
    request_prompt,
)
from llm_qualitative_sort.providers._failures import redact
from llm_qualitative_sort.providers.logprobs import TOP_LOGPROBS, openai_tokens
from llm_qualitative_sort.providers.questions import Request

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import Batch

ENDPOINT: Final[Literal["/v1/chat/completions"]] = "/v1/chat/completions"
_PHASES: dict[str, Phase] = {
    "validating": "running",
    "in_progress": "running",
    "finalizing": "running",
    "cancelling": "running",
    "completed": "ended",
    "expired": "ended",
    "cancelled": "ended",
    "failed": "rejected",
}
# Per-request errors that a later batch may not repeat.
_RETRY_CODES = {"batch_expired", "batch_cancelled", "rate_limit_exceeded", "server_error"}
_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"([^"\\]+)"')
_UPLOAD_TIMEOUT = 900.0


class OpenAIBatchClient(BatchClient):
    """Batches of chat completions on an OpenAI (or compatible) endpoint.

    Args:
        options: Waiting and pricing settings.
        model: Model name.
        secret: The API key.
        base_url: The endpoint, as for the live provider.
        timeout: Seconds one HTTP request may take.
    """

    max_requests = 50_000
    max_bytes = 190_000_000  # the file limit is 200 MB

    def __init__(
        self, options: BatchOptions, model: str, secret: str, base_url: str, timeout: float
    ) -> None:
        super().__init__(options, model, secret)
        self.base_url = base_url
        self.timeout = timeout
        self._client: AsyncOpenAI | None = None

    def _api(self) -> AsyncOpenAI:
        # Built on first use, inside the event loop that uses it (see `PerLoop`).
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=self.secret, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    async def submit(self, requests: Sequence[BatchRequest], tag: str) -> str:
        """Upload the requests as a JSONL file and start a batch on it."""
        lines = [json.dumps(self._line(r), ensure_ascii=False) for r in requests]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        api = self._api()
        # A file of up to 190 MB may take longer than one answer is allowed to.
        uploaded = await api.files.create(file=(f"{tag}.jsonl", data), purpose="batch",
                                          timeout=max(self.timeout, _UPLOAD_TIMEOUT))
        batch = await api.batches.create(
            input_file_id=uploaded.id,
            endpoint=ENDPOINT,
            completion_window="24h",
            metadata={"tag": tag},
        )
        return batch.id

    def _line(self, request: BatchRequest) -> dict[str, Any]:
        (system, user), name, schema = request_prompt(request.request)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": str(system.text)},
                {"role": "user", "content": str(user.text)},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": True, "schema": schema},
            },
        }
        if self.logprobs:
            body |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        return {"custom_id": request.request_id, "method": "POST", "url": ENDPOINT, "body": body}

    async def find(self, tag: str) -> str | None:
        """Look through the newest batches for one carrying `tag`."""
        return await newest_tagged(
            self._api().batches.list(limit=100),
            lambda batch: batch.id if (batch.metadata or {}).get("tag") == tag else None)

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's status and request counts."""
        from openai import NotFoundError

        try:
            batch = await self._api().batches.retrieve(batch_id)
        except NotFoundError:
            return BatchStatus("not found", "missing")
        counts = batch.request_counts
        return BatchStatus(
            state=batch.status,
            phase=_PHASES.get(batch.status, "running"),
            completed=counts.completed if counts else None,
            failed=counts.failed if counts else None,
            message=self._errors(batch),
        )

    def _errors(self, batch: Batch) -> str:
        errors = batch.errors.data if batch.errors and batch.errors.data else []
        text = "; ".join(
            f"{e.code or 'error'}: {e.message or ''}" + (f" (line {e.line})" if e.line else "")
            for e in errors
        )
        return redact(text, self.secret)[:1000]

    async def results(self, batch_id: str, request_ids: Sequence[str],
                      asked: Mapping[str, Request]) -> dict[str, Outcome]:
        """Read the output file and the error file of an ended batch."""
        del request_ids  # every line names its request
        batch = await self._api().batches.retrieve(batch_id)
        outcomes: dict[str, Outcome] = {}
        # Errors first: an answer in the output file wins over an error for the same id.
        for file_id in (batch.error_file_id, batch.output_file_id):
            if file_id:
                content = await self._api().files.content(file_id)
                for line in content.text.splitlines():
                    found = self._outcome(line, batch_id, asked) if line.strip() else None
                    if found is not None:
                        outcomes[found[0]] = found[1]
        return outcomes

    def _outcome(self, line: str, batch_id: str, asked: Mapping[str, Request]
                 ) -> tuple[str, Outcome] | None:
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
            # A line that cannot be read was still an answer (and paid for): when its
            # request can be named, it counts as an answer without a verdict.
            match = _CUSTOM_ID.search(line)
            if match is None or match.group(1) not in asked:
                return None
            raw = {"method": "json_schema", "content": None,
                   "batch": {"id": batch_id, "request": match.group(1)},
                   "problem": "the batch output line is not valid JSON"}
            return match.group(1), self.answer(asked[match.group(1)], "", raw, (0, 0), "")
        custom_id: str = record["custom_id"]
        if custom_id not in asked:
            return None
        response = _dict(record.get("response"))
        body = _dict(response.get("body"))
        status = response.get("status_code")
        if record.get("error") or status != 200:
            return custom_id, self._failure(record.get("error"), status, body)
        return custom_id, self._answer(asked[custom_id], body, batch_id, custom_id)

    def _failure(self, error: Any, status: Any, body: dict[str, Any]) -> RequestFailure:
        detail = _dict(error) or _dict(body.get("error"))
        code, message = detail.get("code"), detail.get("message") or "no detail"
        what = f"HTTP {status}" if status else str(code or "error")
        return self.failure(status, what, str(message), retry=code in _RETRY_CODES)

    def _answer(self, request: Request, body: dict[str, Any], batch_id: str,
                custom_id: str) -> Outcome:
        choices = body.get("choices")
        choice = _dict(choices[0]) if isinstance(choices, list) and choices else {}
        message = _dict(choice.get("message"))
        usage = _dict(body.get("usage"))
        tokens = (int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
        content = message.get("content")
        raw = {
            "method": "json_schema",
            "content": content,
            "refusal": message.get("refusal"),
            "response_metadata": {"id": body.get("id"), "model_name": body.get("model"),
                                  "finish_reason": choice.get("finish_reason")},
            "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
            "batch": {"id": batch_id, "request": custom_id},
        }
        text = content if isinstance(content, str) else None
        return self.answer(request, text, raw, tokens, str(message.get("refusal") or ""),
                           openai_tokens(choice.get("logprobs")))


def _dict(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (a malformed line reads as empty)."""
    return value if isinstance(value, dict) else {}
