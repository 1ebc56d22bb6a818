from __future__ import annotations

from collections.abc import Iterator

import pytest
from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
from _setup import KEY, hidden_scores, make_items


@pytest.fixture
def items() -> list[str]:
    return make_items()


@pytest.fixture
def openai_judge(items: list[str]) -> Iterator[tuple[FakeJudge, str]]:
    judge = FakeJudge(hidden_scores(items), KEY, "gpt-5.1")
    server, url = serve(judge, OpenAIDialect)
    yield judge, url + "/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def gemini_judge(items: list[str]) -> Iterator[tuple[FakeJudge, str]]:
    judge = FakeJudge(hidden_scores(items), KEY, "gemini-3.0")
    server, url = serve(judge, GeminiDialect)
    yield judge, url + "/v1beta"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["openai", "google", "langchain"])
def served(
    request: pytest.FixtureRequest,
    openai_judge: tuple[FakeJudge, str],
    gemini_judge: tuple[FakeJudge, str],
) -> tuple[str, FakeJudge, str]:
    """(provider kind, its fake server's state, its base URL) for each kind in turn."""
    judge, url = gemini_judge if request.param == "google" else openai_judge
    return request.param, judge, url
