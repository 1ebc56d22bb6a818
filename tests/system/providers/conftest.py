"""The provider system tests share the fakes of `tests/integration/providers`."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SHARED = Path(__file__).parents[2] / "integration" / "providers"
sys.path.insert(0, str(SHARED))

from _local_model import LocalModel, Unavailable, required, start  # noqa: E402


def _shared_fixtures() -> ModuleType:
    """The fixtures of `tests/integration/providers/conftest.py` (the fake servers)."""
    spec = importlib.util.spec_from_file_location("provider_fixtures", SHARED / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_shared = _shared_fixtures()
items, openai_judge, gemini_judge = _shared.items, _shared.openai_judge, _shared.gemini_judge


@pytest.fixture(scope="session")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModel]:
    """SmolLM2 behind llama-cpp-python's OpenAI-compatible server, once per session: each
    xdist worker that runs a local-model test starts its own, so those tests (handed out
    first) run side by side."""
    try:
        model = start(tmp_path_factory.mktemp("local-model") / "server.log")
    except Unavailable as exc:
        if required():
            pytest.fail(f"no local model server: {exc}")
        pytest.skip(f"no local model server: {exc}")
    yield model
    model.stop()
