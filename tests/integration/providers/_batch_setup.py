"""What the batch tests share: fake servers per provider, providers in batch mode."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import _batch_fake_gemini
import _batch_fake_openai
from _batch_fakes import BatchFake, serve
from _setup import KEY

from llm_qualitative_sort import GoogleProvider, OpenAIProvider
from llm_qualitative_sort.providers._batch import BatchOptions

MODELS = {"openai": "gpt-5.1", "google": "gemini-3.0"}
ROUTES = {"openai": _batch_fake_openai.routes, "google": _batch_fake_gemini.routes}
SUFFIX = {"openai": "/v1", "google": "/v1beta"}
# Fast polling: the fake batches move on at every status check.
FAST = BatchOptions(poll_interval=0.005, max_poll_interval=0.02)


@contextmanager
def batch_server(kind: str, scores: dict[str, float], **options: Any) -> Iterator[
    tuple[BatchFake, str]
]:
    """A fake batch server of `kind` ("openai" or "google") and its base URL."""
    fake = BatchFake(scores, KEY, MODELS[kind], **options)
    server, url = serve(fake, ROUTES[kind])
    try:
        yield fake, url + SUFFIX[kind]
    finally:
        server.shutdown()
        server.server_close()


def batch_provider(
    kind: str, url: str, options: BatchOptions = FAST, **kwargs: Any
) -> OpenAIProvider | GoogleProvider:
    """The provider `kind` in batch mode, pointed at a fake server."""
    api_key = str(kwargs.pop("api_key", KEY))
    if kind == "openai":
        return OpenAIProvider(api_key=api_key, base_url=url, batch=options, **kwargs)
    return GoogleProvider(api_key=api_key, base_url=url, batch=options, **kwargs)
