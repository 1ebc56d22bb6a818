"""Gemini batch mode as the `google-genai` client uses it (Developer API, inlined requests).

`POST /v1beta/models/<model>:batchGenerateContent` (validated: model, JSON output against the
verdict schema, system instruction, fenced texts, a request id in each request's metadata),
`GET /v1beta/batches/<id>` (PENDING → RUNNING → SUCCEEDED, inlined responses in request
order, each with its metadata), `GET /v1beta/batches` (newest first). Faults per batch:
"expire" (no results), "cancel" (half of the requests answered), "fail", "request_error"
(a 500 for the first request), "invalid" (a 400 for it), "garbled" (the first answer is
not JSON), "refusal" (the first answer is blocked), "no_metadata" (responses without it).
A pointwise request (one text, the label schema) gets a label of its scale (`bad_label`: one
off it for those texts). A request asking for log-probabilities (`responseLogprobs`) gets a
`logprobsResult` when the
fake has some, or is refused with "Logprobs is not enabled" (`refuse_logprobs`: a 400 for the
request, a failed batch, or a 400 for the batch's creation).
"""

from __future__ import annotations

import datetime
from typing import Any

from _batch_fakes import (
    Batch,
    BatchFake,
    Handler,
    Request,
    schema_ok,
    shows_texts,
    split_url,
    text_of,
    texts_of,
)

STATES = ["BATCH_STATE_PENDING", "BATCH_STATE_RUNNING", "BATCH_STATE_SUCCEEDED"]
_ENDS = {"expire": "BATCH_STATE_EXPIRED", "cancel": "BATCH_STATE_CANCELLED",
         "fail": "BATCH_STATE_FAILED"}


def error(status: int, message: str) -> dict[str, Any]:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND"}
    return {"error": {"code": status, "message": message, "status": names.get(status)}}


def routes(h: Handler, method: str, path: str, body: Any) -> None:
    fake = h.fake
    if h.headers.get("x-goog-api-key") != fake.key:
        return h.send_json(401, error(401, "API key not valid."))
    route, query = split_url(path)
    if method == "POST" and route.endswith(":batchGenerateContent"):
        if route != f"/v1beta/models/{fake.model}:batchGenerateContent":
            return h.send_json(404, error(404, f"{route} is not found"))
        return create(h, body)
    if method == "GET" and route == "/v1beta/batches":
        with fake.lock:
            newest = [describe(fake, b) for b in reversed(fake.batches.values())]
        size = int(query.get("pageSize", 50))
        start = int(query.get("pageToken") or 0)
        token = str(start + size) if start + size < len(newest) else ""
        return h.send_json(200, {"operations": newest[start:start + size],
                                 "nextPageToken": token})
    if method == "GET" and route.startswith("/v1beta/batches/"):
        batch = fake.batches.get(route.removeprefix("/v1beta/"))
        if batch is None:
            return h.send_json(404, error(404, f"{route} is not found"))
        with fake.lock:
            fake.advance(batch, STATES)
            finish(fake, batch)
            return h.send_json(200, describe(fake, batch))
    return h.send_json(404, error(404, f"no route {method} {route}"))


def create(h: Handler, body: dict[str, Any]) -> None:
    fake = h.fake
    fault = fake.create_fault()
    if fault == "500":
        return h.send_json(500, {"error": {"code": 500, "message": "injected 500",
                                           "status": "INTERNAL"}})
    spec = body.get("batch") or {}
    items = ((spec.get("inputConfig") or {}).get("requests") or {}).get("requests") or []
    problem = validate(items)
    if problem:
        return h.send_json(400, error(400, problem))
    asked = any(((item.get("request") or {}).get("generationConfig") or {}).get(
        "responseLogprobs") for item in items)
    if fake.refuses("create", asked):
        with fake.lock:
            fake.refused_creations += 1
        return h.send_json(400, error(400, f"Logprobs is not enabled for models/{fake.model}"))
    requests = [Request(item["metadata"]["request"], texts_of(item["request"]), item,
                        text_of(item["request"])) for item in items]
    batch = fake.add(spec.get("displayName", ""), requests, "batches/b")
    if fake.refuses("batch", asked):
        batch.fault = "fail"
        batch.message = f"Logprobs is not enabled for models/{fake.model}"
    batch.state = STATES[0]
    if fault == "lost":
        return h.send_json(500, {"error": {"code": 500, "message": "injected 500 after "
                                           "creating the batch", "status": "INTERNAL"}})
    h.send_json(200, describe(fake, batch))


def validate(items: list[dict[str, Any]]) -> str:
    if not items:
        return "no requests"
    for number, item in enumerate(items, start=1):
        request = item.get("request") or {}
        config = request.get("generationConfig") or {}
        if config.get("responseMimeType") != "application/json" or not schema_ok(
            config.get("responseJsonSchema")
        ):
            return f"request {number}: no JSON schema output"
        system = ((request.get("systemInstruction") or {}).get("parts") or [{}])[0]
        if not system.get("text") or not shows_texts(request):
            return f"request {number}: no system instruction or no fenced texts"
        if not (item.get("metadata") or {}).get("request"):
            return f"request {number}: no request id in metadata"
    return ""


def finish(fake: BatchFake, batch: Batch) -> None:
    fault = batch.fault or ""
    if fault in _ENDS and batch.state == STATES[1]:
        batch.state = _ENDS[fault]
    if batch.answers is not None or batch.state in STATES[:2]:
        return
    if batch.state in ("BATCH_STATE_EXPIRED", "BATCH_STATE_FAILED"):
        batch.answers = []
        return
    done = len(batch.requests) if fault != "cancel" else len(batch.requests) // 2
    batch.answers = [answer(fake, r, i, fault) for i, r in enumerate(batch.requests[:done])]


def answer(fake: BatchFake, request: Request, position: int, fault: str) -> dict[str, Any]:
    meta = {} if fault == "no_metadata" else {"metadata": {"request": request.request_id}}
    if position == 0 and fault in ("request_error", "invalid"):
        code = 500 if fault == "request_error" else 400
        return {"error": {"code": code, "message": f"injected {code}"}, **meta}
    config = (request.body.get("request") or {}).get("generationConfig") or {}
    if fake.refuses("request", bool(config.get("responseLogprobs"))):
        message = f"Logprobs is not enabled for models/{fake.model}"
        return {"error": {"code": 400, "message": message}, **meta}
    text = fake.content(request)
    if position == 0 and fault == "garbled":
        text = "The first one, clearly."
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]},
                                 "finishReason": "STOP", "index": 0}
    tokens = fake.tokens(text)
    if config.get("responseLogprobs") and tokens:
        candidate["logprobsResult"] = {
            "topCandidates": [{"candidates": [{"token": t, "logProbability": z}
                                              for t, z in top]} for _, _, top in tokens],
            "chosenCandidates": [{"token": piece, "logProbability": chosen}
                                 for piece, chosen, _ in tokens]}
    if position == 0 and fault == "refusal":
        candidate = {"finishReason": "SAFETY", "index": 0}
    response: dict[str, Any] = {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10,
                          "totalTokenCount": 110},
        "modelVersion": fake.model,
    }
    if fake.echo_key:
        response["responseId"] = fake.key
    return {"response": response, **meta}


def describe(fake: BatchFake, batch: Batch) -> dict[str, Any]:
    stamp = datetime.datetime.fromtimestamp(batch.created, datetime.UTC).isoformat()
    metadata: dict[str, Any] = {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "model": f"models/{fake.model}", "displayName": batch.tag, "state": batch.state,
        "createTime": stamp, "updateTime": stamp,
        "batchStats": {"requestCount": str(len(batch.requests))},
    }
    if batch.answers is not None:
        metadata["output"] = {"inlinedResponses": {"inlinedResponses": batch.answers}}
    operation: dict[str, Any] = {"name": batch.batch_id, "metadata": metadata,
                                 "done": batch.answers is not None}
    if batch.state == "BATCH_STATE_FAILED":
        operation["error"] = {"code": 400, "message": batch.message or "the batch failed"}
    return operation
