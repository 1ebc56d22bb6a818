"""The OpenAI Batch API as the `openai` client uses it.

Files: upload (multipart, purpose "batch"), content download. Batches: create (validated
like the real one: a bad line or model makes the batch `failed`), retrieve (validating →
in_progress → finalizing → completed), list (newest first, with cursors). Faults per batch:
"expire" / "cancel" (half of the requests done, the rest in the error file), "fail",
"malformed" (the first output line is cut short), "request_error" (a 500 for the first
request), "invalid" (a 400 for the first request), "garbled" (the first answer is not
JSON), "refusal" (the first answer is a refusal). A pointwise request (one text, the
label schema) gets a label of its scale (`bad_label`: one off it for those texts). A request
asking for log-probabilities
gets them at its verdict token when the fake has some, or is refused (`refuse_logprobs`: a
400 for the request, a failed batch, or a 400 for the batch's creation).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import time
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

STATES = ["validating", "in_progress", "finalizing", "completed"]
ENDPOINT = "/v1/chat/completions"


def error(message: str, code: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def routes(h: Handler, method: str, path: str, body: Any) -> None:
    fake = h.fake
    if h.headers.get("authorization") != f"Bearer {fake.key}":
        return h.send_json(401, error("Incorrect API key provided", "invalid_api_key"))
    route, query = split_url(path)
    parts = route.strip("/").split("/")
    if method == "POST" and route == "/v1/files":
        return upload(h, body)
    if method == "GET" and len(parts) == 4 and parts[1] == "files" and parts[3] == "content":
        data = fake.files.get(parts[2])
        if data is None:
            return h.send_json(404, error(f"no file {parts[2]}"))
        return h.send_bytes(200, data, "application/octet-stream")
    if method == "POST" and route == "/v1/batches":
        return create(h, body)
    if method == "GET" and route == "/v1/batches":
        return listing(h, query)
    if method == "GET" and len(parts) == 3 and parts[1] == "batches":
        batch = fake.batches.get(parts[2])
        if batch is None:
            return h.send_json(404, error(f"no batch {parts[2]}"))
        with fake.lock:
            fake.advance(batch, STATES)
            finish(fake, batch)
            return h.send_json(200, describe(fake, batch))
    return h.send_json(404, error(f"no route {method} {route}"))


def upload(h: Handler, data: bytes) -> None:
    head = f"content-type: {h.headers['content-type']}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + data)
    fields = {part.get_param("name", header="content-disposition"): part
              for part in message.iter_parts()}
    purpose = fields["purpose"].get_content().strip()
    content = fields["file"].get_payload(decode=True)
    fake = h.fake
    with fake.lock:
        file_id = f"file-{len(fake.files) + 1}"
        fake.files[file_id] = content
    h.send_json(200, {"id": file_id, "object": "file", "bytes": len(content),
                      "created_at": int(time.time()), "filename": "batch.jsonl",
                      "purpose": purpose, "status": "processed"})


def create(h: Handler, body: dict[str, Any]) -> None:
    fake = h.fake
    fault = fake.create_fault()
    if fault == "500":
        return h.send_json(500, error("injected 500", "server_error"))
    content = fake.files.get(body.get("input_file_id", ""))
    if content is None:
        return h.send_json(400, error("input file not found"))
    if body.get("endpoint") != ENDPOINT or body.get("completion_window") != "24h":
        return h.send_json(400, error("bad endpoint or completion window"))
    lines = [json.loads(line) for line in content.decode().splitlines() if line.strip()]
    if fake.refuses("create", any(line["body"].get("logprobs") for line in lines)):
        with fake.lock:
            fake.refused_creations += 1
        return h.send_json(400, error("logprobs is not supported with this model"))
    requests = [Request(line["custom_id"], texts_of(line.get("body")), line,
                        text_of(line.get("body"))) for line in lines]
    tag = (body.get("metadata") or {}).get("tag", "")
    batch = fake.add(tag, requests, "batch_")
    batch.state = "validating"
    problem = validate(fake, lines)
    if fake.refuses("batch", any(line["body"].get("logprobs") for line in lines)):
        problem = "logprobs is not supported with this model"
    if problem:
        batch.fault = "fail:" + problem
    if fault == "lost":
        return h.send_json(500, error("injected 500 after creating the batch", "server_error"))
    h.send_json(200, describe(fake, batch) | {"metadata": body.get("metadata")})


def validate(fake: BatchFake, lines: list[dict[str, Any]]) -> str:
    ids = [line.get("custom_id") for line in lines]
    if len(set(ids)) != len(ids):
        return "duplicate custom_id"
    for number, line in enumerate(lines, start=1):
        request = line.get("body") or {}
        response_format = request.get("response_format") or {}
        schema = (response_format.get("json_schema") or {}).get("schema")
        roles = [m.get("role") for m in request.get("messages", [])]
        if line.get("method") != "POST" or line.get("url") != ENDPOINT:
            return f"line {number}: method or url"
        if request.get("model") != fake.model:
            return f"line {number}: model {request.get('model')} does not exist"
        if response_format.get("type") != "json_schema" or not schema_ok(schema):
            return f"line {number}: no json_schema response format"
        if roles != ["system", "user"] or not shows_texts(request):
            return f"line {number}: no fenced texts in the prompt"
    return ""


def finish(fake: BatchFake, batch: Batch) -> None:
    """At the end of its run, a batch gets its outcome (once)."""
    fault = batch.fault or ""
    if fault.startswith("fail") and batch.state != "validating":
        batch.state = "failed"
    if fault in ("expire", "cancel") and batch.state == "finalizing":
        batch.state = "expired" if fault == "expire" else "cancelled"
    if batch.state not in ("completed", "expired", "cancelled") or batch.answers is not None:
        return
    done = len(batch.requests) if batch.state == "completed" else len(batch.requests) // 2
    out, err = [], []
    for position, request in enumerate(batch.requests):
        if position >= done:
            code = "batch_expired" if fault == "expire" else "batch_cancelled"
            err.append(line(request, None, {"code": code, "message": "not processed in time"}))
        elif position == 0 and fault in ("request_error", "invalid"):
            status = 500 if fault == "request_error" else 400
            err.append(line(request, response(status, error(f"injected {status}")), None))
        elif fake.refuses("request", bool(request.body["body"].get("logprobs"))):
            refused = error("logprobs is not supported with this model")
            err.append(line(request, response(400, refused), None))
        else:
            out.append(line(request, response(200, completion(fake, request, position, fault)),
                            None))
    batch.answers = out + err
    text = [json.dumps(x, ensure_ascii=False) for x in out]
    if fault == "malformed" and text:
        text[0] = text[0][: len(text[0]) // 2]
    fake.files[f"{batch.batch_id}-output"] = ("\n".join(text) + "\n").encode()
    fake.files[f"{batch.batch_id}-errors"] = "\n".join(json.dumps(x) for x in err).encode()


def line(request: Request, resp: Any, err: Any) -> dict[str, Any]:
    return {"id": f"batch_req_{request.request_id}", "custom_id": request.request_id,
            "response": resp, "error": err}


def response(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"status_code": status, "request_id": "req_fake", "body": body}


def completion(fake: BatchFake, request: Request, position: int, fault: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": fake.content(request),
                               "refusal": None}
    if position == 0 and fault == "garbled":
        message["content"] = '{"reasoning": "A is better because'
    if position == 0 and fault == "refusal":
        message |= {"content": None, "refusal": "I can't help with comparing these texts."}
    choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
    tokens = fake.tokens(message["content"] or "")
    if request.body["body"].get("logprobs") and tokens:
        choice["logprobs"] = {"content": [
            {"token": piece, "logprob": chosen, "bytes": None,
             "top_logprobs": [{"token": t, "logprob": z, "bytes": None} for t, z in top]}
            for piece, chosen, top in tokens]}
    body = {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": fake.model,
            "choices": [choice],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}
    if fake.echo_key:
        body["system_fingerprint"] = fake.key
    return body


def describe(fake: BatchFake, batch: Batch) -> dict[str, Any]:
    total = len(batch.requests)
    ended = batch.answers is not None
    completed = {"validating": 0, "in_progress": total // 2, "finalizing": total}.get(
        batch.state, sum(1 for a in batch.answers or [] if (a["response"] or {}).get(
            "status_code") == 200))
    errors = None
    if batch.state == "failed":
        errors = {"object": "list", "data": [
            {"code": "invalid_request", "message": batch.fault.partition(":")[2] or "rejected",
             "line": None}]}
    return {
        "id": batch.batch_id, "object": "batch", "endpoint": ENDPOINT,
        "completion_window": "24h", "created_at": int(batch.created),
        "input_file_id": "file-x", "status": batch.state, "errors": errors,
        "metadata": {"tag": batch.tag},
        "output_file_id": f"{batch.batch_id}-output" if ended else None,
        "error_file_id": f"{batch.batch_id}-errors" if ended else None,
        "request_counts": {"total": total, "completed": completed,
                           "failed": total - completed if ended else 0},
    }


def listing(h: Handler, query: dict[str, str]) -> None:
    fake = h.fake
    limit = int(query.get("limit", 20))
    with fake.lock:
        newest = list(reversed(fake.batches.values()))
    if "after" in query:
        ids = [b.batch_id for b in newest]
        newest = newest[ids.index(query["after"]) + 1:]
    page = newest[:limit]
    h.send_json(200, {"object": "list", "data": [describe(fake, b) for b in page],
                      "has_more": len(newest) > limit,
                      "first_id": page[0].batch_id if page else None,
                      "last_id": page[-1].batch_id if page else None})
