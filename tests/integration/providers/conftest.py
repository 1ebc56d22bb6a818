from __future__ import annotations

from collections.abc import Iterator

import pytest
from _fakes import FakeJudge, GeminiDialect, OpenAIDialect, serve
from _local_model import LocalModel, Unavailable, required, start
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


@pytest.fixture(scope="session")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    """SmolLM2 behind llama-cpp-python's OpenAI-compatible server, once per session."""
    try:
        model = start(tmp_path_factory.mktemp("local-model") / "server.log")
    except Unavailable as exc:
        if required():
            pytest.fail(f"no local model server: {exc}")
        pytest.skip(f"no local model server: {exc}")
    yield model
    model.stop()
