"""A loopback proxy that forwards every request to a server and keeps what went each way.

Put between a provider and a real server (its `base_url`), it lets a test compare what the
provider read with the raw response the server sent.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Exchange:
    """One request and the server's answer, as JSON where they were JSON."""

    path: str
    request: Any
    status: int
    response: Any


@dataclass
class Recording:
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def chat(self) -> list[Exchange]:
        """The chat-completion exchanges, in order."""
        with self.lock:
            return [e for e in self.exchanges if e.path.endswith("/chat/completions")]


def _json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", errors="replace")


@contextmanager
def recording_proxy(upstream: str, max_tokens: int | None = None
                    ) -> Iterator[tuple[str, Recording]]:
    """A proxy to `upstream` (scheme://host:port) on 127.0.0.1: (its URL, the recording).

    `max_tokens` caps each chat request's answer on its way to the server (the recording
    keeps the request as the provider sent it): a weak model that writes on and on costs
    minutes on a shared machine. An answer the client no longer waited for (it gave up) is
    not recorded: the provider never read it.
    """
    recording = Recording()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _forward(self, method: str) -> None:
            length = int(self.headers.get("content-length", 0))
            body = self.rfile.read(length) if length else None
            headers = {"content-type": self.headers.get("content-type", "application/json")}
            sent = body
            asked = _json(body or b"null")
            if max_tokens is not None and isinstance(asked, dict) and "messages" in asked:
                sent = json.dumps({"max_tokens": max_tokens, **asked}).encode()
            request = urllib.request.Request(upstream + self.path, data=sent, method=method,
                                             headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=600) as answer:
                    status, data = answer.status, answer.read()
            except urllib.error.HTTPError as exc:
                status, data = exc.code, exc.read()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            with recording.lock:
                recording.exchanges.append(Exchange(self.path, asked, status, _json(data)))

        def do_GET(self) -> None:
            self._forward("GET")

        def do_POST(self) -> None:
            self._forward("POST")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host}:{port}", recording
    finally:
        server.shutdown()
        server.server_close()
