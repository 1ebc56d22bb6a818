"""Fake batch servers on 127.0.0.1: OpenAI's Batch API and Gemini's batch mode.

Each server keeps what the real one keeps (uploaded files, batches and their states), checks
each request the way the real API would (key, paths, model, the structured-output fields,
both texts recoverable from their fences, or the one text of a pointwise request), answers
every request by a hidden score (a verdict, or a label of the request's scale), and
records every submission, so tests can count batches and requests. A batch advances one
state per `polls_per_state` status checks; `hold_round` keeps the batches of that round and
later ones running (until set back to None); a script of faults
applies to the next batches created, one fault per batch.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from _fakes import FakeJudge, Pieces, _Server, answer_tokens, find_ranked, find_text, find_texts

ROUND = re.compile(r"^lqs-r(\d+)-")


@dataclass
class Request:
    """One request inside a submitted batch."""

    request_id: str
    texts: tuple[str, str] | None
    body: dict[str, Any]
    text: str | None = None  # the one text of a pointwise request


@dataclass
class Batch:
    """A batch as the server keeps it."""

    batch_id: str
    tag: str
    requests: list[Request]
    fault: str | None
    created: float
    polls: int = 0
    state: str = ""
    answers: list[dict[str, Any]] | None = None  # built once the batch ends
    message: str = ""  # why a failed batch failed


@dataclass
class BatchFake:
    """State shared by the handler threads."""

    scores: dict[str, float]
    key: str
    model: str
    script: list[str | None] = field(default_factory=list)
    # Faults of the next batch creations: "500" (refused, nothing created) or "lost" (the
    # batch is created but the answer is a 500, as when a response is lost on the way).
    create_faults: list[str] = field(default_factory=list)
    polls_per_state: int = 1
    hold_round: int | None = None
    echo_key: bool = False
    # Requests whose schema offers a tie get one when the scores differ by less than this.
    ties_below: float = 0.0
    # Pointwise answers of these texts give a label off the request's scale.
    bad_label: set[str] = field(default_factory=set)
    # The order ranking answers give instead of the hidden scores' (a malformed one).
    rank_order: Any = None
    # Log-probabilities sent at the verdict token of requests that ask for them (label →
    # logprob), and how a batch asking for them is refused: "request" (a 400 for each such
    # request), "batch" (the whole batch fails) or "create" (its creation is a 400).
    logprobs: dict[str, float] | None = None
    refuse_logprobs: str | None = None
    refused_creations: int = 0
    batches: dict[str, Batch] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def refuses(self, how: str, asked: bool) -> bool:
        """Whether a batch (or request) that `asked` for log-probabilities is refused `how`."""
        return asked and self.refuse_logprobs == how

    def next_fault(self) -> str | None:
        return self.script.pop(0) if self.script else None

    def create_fault(self) -> str | None:
        with self.lock:
            return self.create_faults.pop(0) if self.create_faults else None

    def add(self, tag: str, requests: list[Request], prefix: str) -> Batch:
        with self.lock:
            batch_id = f"{prefix}{len(self.batches) + 1}"
            batch = Batch(batch_id, tag, requests, self.next_fault(), time.time())
            self.batches[batch_id] = batch
            return batch

    def winner(self, texts: tuple[str, str]) -> str:
        return "A" if self.scores[texts[0]] > self.scores[texts[1]] else "B"

    def verdict_text(self, texts: tuple[str, str], body: Any = None) -> str:
        winner = self.winner(texts)
        offered = '"tie"' in json.dumps(body)
        if offered and abs(self.scores[texts[0]] - self.scores[texts[1]]) < self.ties_below:
            winner = "tie"
        reasoning = f"{winner} meets the criterion better."
        if self.echo_key:
            reasoning += f" (request carried {self.key})"
        return json.dumps({"reasoning": reasoning, "winner": winner}, ensure_ascii=False)

    def score_text(self, text: str, body: Any) -> str:
        """A pointwise answer: the label of the scale the schema lists, by the hidden score."""
        labels = sorted(score_labels(body) or [1, 2, 3, 4])
        low, high = min(self.scores.values()), max(self.scores.values())
        share = (self.scores[text] - low) / (high - low) if high > low else 0.5
        label = labels[min(len(labels) - 1, int(len(labels) * share))]
        if text in self.bad_label:
            label = labels[-1] + 1
        return json.dumps({"reason": f"It deserves a {label}.", "label": label},
                          ensure_ascii=False)

    def content(self, request: Request) -> str:
        """The answer's text: a label for one text, a verdict for two, an order for more."""
        ranked = find_ranked(request.body)
        if ranked is not None:
            judge = FakeJudge(self.scores, self.key, self.model, rank_order=self.rank_order)
            return json.dumps(judge.ranking(ranked), ensure_ascii=False)
        if request.text is not None:
            return self.score_text(request.text, request.body)
        assert request.texts is not None
        return self.verdict_text(request.texts, request.body)

    def tokens(self, content: str) -> Pieces | None:
        """The answer's tokens with log-probabilities, when the fake sends some for it."""
        if not self.logprobs or ('"winner"' not in content and '"label"' not in content):
            return None
        return answer_tokens(content, self.logprobs)

    def submitted(self) -> list[tuple[int, str]]:
        """(round, request id) of every request of every batch, in creation order."""
        with self.lock:
            return [(round_of(b.tag), r.request_id) for b in self.batches.values()
                    for r in b.requests]

    def rounds(self) -> list[int]:
        """The round of each batch, in creation order."""
        with self.lock:
            return [round_of(b.tag) for b in self.batches.values()]

    def advance(self, batch: Batch, states: list[str]) -> None:
        """One status check: move on one state every `polls_per_state` checks."""
        if batch.state not in states[:-1]:
            return  # ended
        batch.polls += 1
        position = states.index(batch.state)
        last_running = len(states) - 2
        held = self.hold_round is not None and round_of(batch.tag) >= self.hold_round
        if held and position >= 1:
            return  # held in a running state
        if batch.polls >= self.polls_per_state and position < last_running:
            batch.state, batch.polls = states[position + 1], 0
        elif batch.polls >= self.polls_per_state and position == last_running:
            batch.state = states[-1]


def round_of(tag: str) -> int:
    match = ROUND.match(tag)
    return int(match.group(1)) if match else -1


class Handler(BaseHTTPRequestHandler):
    fake: BatchFake
    routes: Callable[[Handler, str, str, dict[str, Any] | bytes], None]
    disable_nagle_algorithm = True

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch("GET", b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        self._dispatch("POST", self.rfile.read(length))

    def _dispatch(self, method: str, data: bytes) -> None:
        with self.fake.lock:
            self.fake.log.append(f"{method} {self.path}")
        body: dict[str, Any] | bytes = data
        if self.headers.get("content-type", "").startswith("application/json"):
            body = json.loads(data or b"{}")
        type(self).routes(self, method, self.path, body)

    def send_json(self, status: int, payload: Any) -> None:
        self.send_bytes(status, json.dumps(payload, ensure_ascii=False).encode(),
                        "application/json")

    def send_bytes(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(fake: BatchFake, routes: Any) -> tuple[_Server, str]:
    handler = type("BatchHandler", (Handler,), {"fake": fake, "routes": routes})
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}"


def split_url(path: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(path)
    return parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}


def schema_ok(schema: Any) -> bool:
    """A verdict's schema, or a pointwise label's (with its labels listed)."""
    properties = set(schema.get("properties", {})) if isinstance(schema, dict) else set()
    return {"reasoning", "winner"} <= properties or {"reasoning", "order"} <= properties or (
        {"reason", "label"} <= properties and bool(score_labels(schema)))


def score_labels(body: Any) -> list[int]:
    """The labels a pointwise request's schema allows (found anywhere in `body`)."""
    if isinstance(body, dict):
        enum = ((body.get("properties") or {}).get("label") or {}).get("enum")
        if isinstance(enum, list):
            return [int(k) for k in enum]
        values = body.values()
    else:
        values = body if isinstance(body, list) else []
    for value in values:
        found = score_labels(value)
        if found:
            return found
    return []


def texts_of(body: Any) -> tuple[str, str] | None:
    return find_texts(body) if isinstance(body, dict) else None


def shows_texts(body: Any) -> bool:
    """Whether a request's prompt shows fenced texts: one, two, or several to rank."""
    return isinstance(body, dict) and (
        find_ranked(body) is not None or texts_of(body) is not None or text_of(body) is not None)


def text_of(body: Any) -> str | None:
    """The one text of a pointwise request, or None."""
    return find_text(body) if isinstance(body, dict) and texts_of(body) is None else None
