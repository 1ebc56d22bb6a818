"""Fake OpenAI and Gemini servers on 127.0.0.1, answering by a hidden score.

Each server reads the two texts out of the prompt's fences, checks the request the way the
real API would (key, path, model, structured-output fields), and answers in the real wire
format, so the real client libraries run end to end. A script of faults applies to the next
requests; `always` applies to every request. Besides HTTP errors, slow answers and dropped
connections, a fault may be a 200 whose body is cut in half ("truncated") or has no
`choices` / `candidates` ("no_choices").
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FENCE = r"<<<BEGIN TEXT {side} (\w+)>>>\n(.*?)\n<<<END TEXT {side} \1>>>"
FENCE_A = re.compile(FENCE.format(side="A"), re.DOTALL)
FENCE_B = re.compile(FENCE.format(side="B"), re.DOTALL)
# A pointwise prompt shows one text.
FENCE_ONE = re.compile(r"<<<BEGIN TEXT (\w+)>>>\n(.*?)\n<<<END TEXT \1>>>", re.DOTALL)
# A ranking prompt shows three or more texts, labelled A, B, C...
FENCE_LABELLED = re.compile(r"<<<BEGIN TEXT ([A-H]) (\w+)>>>\n(.*?)\n<<<END TEXT \1 \2>>>",
                            re.DOTALL)


@dataclass
class Seen:
    """One request as the server saw it."""

    path: str
    method: str  # json_schema / function_calling / json_mode / text
    texts: tuple[str, str] | None
    body: dict[str, Any]


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def find_text(body: dict[str, Any]) -> str | None:
    """The one text a pointwise prompt shows, or None."""
    found = FENCE_ONE.search("\n".join(strings(body)))
    return None if found is None else found.group(2)


def find_ranked(body: dict[str, Any]) -> tuple[str, ...] | None:
    """The texts a ranking prompt shows, in label order, or None (fewer than three)."""
    found = FENCE_LABELLED.findall("\n".join(strings(body)))
    return tuple(text for _, _, text in found) if len(found) >= 3 else None


def find_texts(body: dict[str, Any]) -> tuple[str, str] | None:
    if find_ranked(body) is not None:
        return None
    prompt = "\n".join(strings(body))
    a, b = FENCE_A.search(prompt), FENCE_B.search(prompt)
    if a is None or b is None or a.group(1) != b.group(1):
        return None
    return a.group(2), b.group(2)


@dataclass
class FakeJudge:
    """State shared by the handler threads: scores, faults, what was seen."""

    scores: dict[str, float]
    key: str
    model: str
    script: list[str] = field(default_factory=list)
    always: str | None = None
    reject: set[str] = field(default_factory=set)  # structured-output methods refused
    reject_status: int = 400  # llama-cpp-python refuses json_schema with a 500
    text_answer: str | None = None  # a plain-text answer, "{winner}" filled in
    echo_key: bool = False  # a careless proxy copying the key into the answer
    refuse_item: str | None = None  # every request showing this text is refused
    retry_after: str | None = "0"
    slow_seconds: float = 1.0
    # Log-probabilities sent at the verdict token when asked for (label → logprob), and
    # whether the server refuses the request for them (as Gemini does for some models).
    logprobs: dict[str, float] | None = None
    refuse_logprobs: bool = False
    # The order a ranking answer gives instead of the hidden scores' (a malformed one).
    rank_order: Any = None
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_fault(self, texts: tuple[str, str] | None) -> str | None:
        if texts is not None and self.refuse_item in texts:
            return "refusal"
        with self.lock:
            return self.script.pop(0) if self.script else self.always

    def winner(self, texts: tuple[str, str]) -> str:
        return "A" if self.scores[texts[0]] > self.scores[texts[1]] else "B"

    def verdict(self, texts: tuple[str, str]) -> dict[str, str]:
        winner = self.winner(texts)
        reasoning = f"{winner} meets the criterion better."
        if self.echo_key:
            reasoning += f" (request carried {self.key})"
        return {"reasoning": reasoning, "winner": winner}

    def score(self, text: str) -> dict[str, Any]:
        """A pointwise answer: the label 1-4 by the text's place among the hidden scores."""
        low, high = min(self.scores.values()), max(self.scores.values())
        share = (self.scores[text] - low) / (high - low) if high > low else 0.5
        label = 1 + min(3, int(4 * share))
        return {"reason": f"It deserves a {label}.", "label": label}

    def ranking(self, texts: tuple[str, ...]) -> dict[str, Any]:
        """An order of the labels shown, by the hidden scores (or `rank_order`)."""
        labels = "ABCDEFGH"[: len(texts)]
        best = sorted(labels, key=lambda label: -self.scores[texts[labels.index(label)]])
        order = best if self.rank_order is None else self.rank_order
        return {"reasoning": f"{best[0]} meets the criterion best.", "order": order}

    def answer(self, body: dict[str, Any], texts: tuple[str, str] | None) -> str | None:
        """The JSON answer: a verdict for two texts, a label for one, an order for more."""
        ranked = find_ranked(body)
        if ranked is not None:
            return json.dumps(self.ranking(ranked), ensure_ascii=False)
        if texts is not None:
            return json.dumps(self.verdict(texts), ensure_ascii=False)
        one = find_text(body)
        return None if one is None else json.dumps(self.score(one), ensure_ascii=False)

    def record(self, seen: Seen) -> None:
        with self.lock:
            self.seen.append(seen)

    def methods(self) -> list[str]:
        return [s.method for s in self.seen]

    def usage(self, body: dict[str, Any]) -> tuple[int, int]:
        """The prompt and answer tokens an answer reports."""
        del body
        return 100, 10


class _Handler(BaseHTTPRequestHandler):
    judge: FakeJudge
    dialect: Any
    # Headers and body go out in two writes; with Nagle's algorithm the second one waits
    # for the client's delayed ACK (40 ms a request).
    disable_nagle_algorithm = True
    # HTTP/1.0: one connection per request, so no idle keep-alive connection outlives a
    # test (an unclosed socket is a ResourceWarning, an error under this suite's filters).

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.dialect.handle(self, body)

    def send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str], cut: bool = False
    ) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        if cut:  # a body cut short by a proxy, with a length that matches: not a dropped link
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in {**getattr(self, "extra_headers", {}), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def drop(self) -> None:
        self.close_connection = True
        self.connection.shutdown(2)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 refuses bursts of parallel calls

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out leaves a broken pipe behind: expected here


def serve(judge: FakeJudge, dialect: Any) -> tuple[_Server, str]:
    handler = type("Handler", (_Handler,), {"judge": judge, "dialect": dialect})
    server = _Server(("127.0.0.1", 0), handler)
    # A short poll interval keeps `shutdown()` (and so each test's teardown) fast.
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}"


def common_fault(handler: _Handler, fault: str | None, error: Any) -> bool:
    """Apply a transport-level fault; True when the request is answered by it."""
    judge = handler.judge
    if fault == "drop":
        handler.drop()
        return True
    if fault == "slow":
        time.sleep(judge.slow_seconds)
        return False
    if fault in ("429", "500", "503", "401", "404"):
        headers = {}
        if fault == "429" and judge.retry_after is not None:
            headers["retry-after"] = judge.retry_after
        handler.send_json(int(fault), error(int(fault), f"injected {fault}"), headers)
        return True
    return False


# What compatible servers say when they cannot honour a request's structured-output fields.
REFUSALS = {
    "json_schema": "response_format type should be 'text' or 'json_object'",
    "json_mode": "response_format type should be 'text'",
    "function_calling": "tools and tool_choice are not supported by this server",
    "text": "this endpoint only answers with structured output",
}


class OpenAIDialect:
    """`POST /v1/chat/completions` as OpenAI answers it."""

    @staticmethod
    def error(status: int, message: str) -> dict[str, Any]:
        return {"error": {"message": message, "type": "invalid_request_error", "code": status}}

    @classmethod
    def handle(cls, h: _Handler, body: dict[str, Any]) -> None:
        judge = h.judge
        texts = find_texts(body)
        method = cls.method(body)
        judge.record(Seen(h.path, method, texts, body))
        if h.headers.get("authorization") != f"Bearer {judge.key}":
            return h.send_json(401, cls.error(401, "Incorrect API key provided"), {})
        if h.path != "/v1/chat/completions":
            return h.send_json(404, cls.error(404, f"no route {h.path}"), {})
        if body.get("model") != judge.model:
            return h.send_json(404, cls.error(404, f"model {body.get('model')} not found"), {})
        fault = judge.next_fault(texts)
        if common_fault(h, fault, cls.error):
            return None
        if method in judge.reject:
            status = judge.reject_status
            return h.send_json(status, cls.error(status, REFUSALS[method]), {})
        if body.get("logprobs") and judge.refuse_logprobs:
            return h.send_json(400, cls.error(400, "logprobs is not supported with this model"),
                               {})
        answer = judge.answer(body, texts)
        if answer is None:
            return h.send_json(400, cls.error(400, "no fenced texts in the prompt"), {})
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if method == "text" and judge.text_answer is not None and texts is not None:
            answer = judge.text_answer.format(winner=judge.winner(texts))
        if fault == "malformed":
            answer = '{"reasoning": "A is better because'
        if fault == "refusal":
            message["refusal"] = "I can't help with comparing these texts."
        elif method == "function_calling":
            name = body["tools"][0]["function"]["name"]
            message["tool_calls"] = [
                {"id": "call_1", "type": "function",
                 "function": {"name": name, "arguments": answer}}
            ]
        else:
            message["content"] = answer
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
        if body.get("logprobs") and judge.logprobs and message["content"]:
            choice["logprobs"] = {"content": [
                {"token": piece, "logprob": chosen, "bytes": None,
                 "top_logprobs": [{"token": t, "logprob": z, "bytes": None} for t, z in top]}
                for piece, chosen, top in answer_tokens(message["content"], judge.logprobs)]}
        payload = {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": judge.model,
            "choices": [choice],
            "usage": dict(zip(("prompt_tokens", "completion_tokens", "total_tokens"),
                              (*judge.usage(body), sum(judge.usage(body))), strict=True)),
        }
        if judge.echo_key:
            payload["system_fingerprint"] = judge.key
        if fault == "no_choices":
            del payload["choices"]
        return h.send_json(200, payload, {}, cut=fault == "truncated")

    @staticmethod
    def method(body: dict[str, Any]) -> str:
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema":
            schema = body["response_format"]["json_schema"]["schema"]
            assert ({"reasoning", "winner"} <= set(schema["properties"])
                    or {"reasoning", "order"} <= set(schema["properties"])
                    or {"reason", "label"} <= set(schema["properties"])), schema
            return "json_schema"
        if kind == "json_object":
            return "json_mode"
        return "function_calling" if body.get("tools") else "text"


class GeminiDialect:
    """`POST /v1beta/models/<model>:generateContent` as Gemini answers it."""

    @staticmethod
    def error(status: int, message: str) -> dict[str, Any]:
        names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND",
                 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
        return {"error": {"code": status, "message": message, "status": names.get(status)}}

    @classmethod
    def handle(cls, h: _Handler, body: dict[str, Any]) -> None:
        judge = h.judge
        texts = find_texts(body)
        method = cls.method(body)
        judge.record(Seen(h.path, method, texts, body))
        if h.headers.get("x-goog-api-key") != judge.key:
            return h.send_json(401, cls.error(401, "API key not valid."), {})
        if h.path != f"/v1beta/models/{judge.model}:generateContent":
            return h.send_json(404, cls.error(404, f"{h.path} is not found"), {})
        fault = judge.next_fault(texts)
        if common_fault(h, fault, cls.error):
            return None
        if method in judge.reject:
            status = judge.reject_status
            return h.send_json(status, cls.error(status, REFUSALS[method]), {})
        config = body.get("generationConfig") or {}
        if config.get("responseLogprobs") and judge.refuse_logprobs:
            message = f"Logprobs is not enabled for models/{judge.model}"
            return h.send_json(400, cls.error(400, message), {})
        found = judge.answer(body, texts)
        if found is None:
            return h.send_json(400, cls.error(400, "no fenced texts in the prompt"), {})
        answer = found
        if fault == "malformed":
            answer = "The first one, clearly."
        parts: list[dict[str, Any]] = [{"text": answer}]
        if method == "function_calling":
            name = body["tools"][0]["functionDeclarations"][0]["name"]
            parts = [{"functionCall": {"name": name, "args": json.loads(answer)}}]
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0,
        }
        if config.get("responseLogprobs") and judge.logprobs and method != "function_calling":
            tokens = answer_tokens(answer, judge.logprobs)
            candidate["logprobsResult"] = {
                "topCandidates": [{"candidates": [{"token": t, "logProbability": z}
                                                  for t, z in top]} for _, _, top in tokens],
                "chosenCandidates": [{"token": piece, "logProbability": chosen}
                                     for piece, chosen, _ in tokens]}
        if fault == "refusal":
            candidate = {"finishReason": "SAFETY", "index": 0}
        payload = {
            "candidates": [candidate],
            "usageMetadata": dict(zip(
                ("promptTokenCount", "candidatesTokenCount", "totalTokenCount"),
                (*judge.usage(body), sum(judge.usage(body))), strict=True)),
            "modelVersion": judge.model,
        }
        if judge.echo_key:
            payload["responseId"] = judge.key
        if fault == "no_choices":
            del payload["candidates"]
        return h.send_json(200, payload, {}, cut=fault == "truncated")

    @staticmethod
    def method(body: dict[str, Any]) -> str:
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json":
            schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
            assert ({"reasoning", "winner"} <= set(schema.get("properties", {}))
                    or {"reasoning", "order"} <= set(schema.get("properties", {}))
                    or {"reason", "label"} <= set(schema.get("properties", {}))), config
            return "json_schema"
        return "function_calling" if body.get("tools") else "text"


Pieces = list[tuple[str, float, list[tuple[str, float]]]]


def verdict_tokens(answer: str, labels: dict[str, float]) -> Pieces:
    """`answer` cut into tokens as a tokenizer might, with `labels` at the verdict token.

    The winner's opening quote is glued to its value (`"A`), as BPE tokenizers often do;
    the verdict token's alternatives are the labels (each with its quote) and a stray
    token that spells none; every other token is certain.
    """
    start = answer.rindex('"winner"')
    value = answer.index('"', answer.index(":", start)) + 1
    cut = [answer[i:min(i + 4, value - 1)] for i in range(0, value - 1, 4)]
    head = [(piece, 0.0, [(piece, 0.0)]) for piece in cut]
    winner = answer[value:answer.index('"', value)]
    top = [(f'"{label}', z) for label, z in labels.items()] + [('"The', -9.0)]
    chosen = labels.get(winner, -1.0)
    tail = answer[value + len(winner):]
    return [*head, (f'"{winner}', chosen, top), (tail, 0.0, [(tail, 0.0)])]


def answer_tokens(answer: str, labels: dict[str, float]) -> Pieces:
    """The tokens of a verdict (`verdict_tokens`) or of a pointwise answer (`label_tokens`)."""
    return label_tokens(answer, labels) if '"label"' in answer else verdict_tokens(answer, labels)


def label_tokens(answer: str, labels: dict[str, float]) -> Pieces:
    """A pointwise answer cut into tokens, with `labels` ("1" -> logprob) at the label token.

    The label is its own token after `"label": ` (with the space glued to it, as BPE
    tokenizers do); its alternatives are the labels and a stray token that spells none.
    """
    start = answer.rindex('"label"')
    value = answer.index(":", start) + 1  # the space after the colon starts the token
    label = answer[value:].strip().rstrip("}").strip()
    head = [(answer[:value], 0.0, [(answer[:value], 0.0)])]
    top = [(f" {k}", z) for k, z in labels.items()] + [(" The", -9.0)]
    piece = answer[value:value + 1 + len(label)]
    tail = answer[value + len(piece):]
    return [*head, (piece, labels.get(label, -1.0), top), (tail, 0.0, [(tail, 0.0)])]
