import json
import sys
import types
import warnings
from typing import Any

import pytest

from llm_qualitative_sort import LLMProvider, MemoryCache, MockLLMProvider
from llm_qualitative_sort.graph import TournamentContext, build_graph
from llm_qualitative_sort.models import ComparisonResult


class _Fake(LLMProvider):
    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return ComparisonResult(winner="A", reasoning="fake")


def test_context_schema_lists_only_plain_fields() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema = build_graph().get_context_jsonschema()
    assert schema is not None
    assert set(schema["properties"]) == {"provider", "model", "judges",
                                         "max_concurrent_requests", "call_timeout"}
    assert schema["properties"]["provider"]["enum"] == ["mock", "openai", "google"]
    json.dumps(schema)


def test_library_objects_still_fit_the_context() -> None:
    judge = _Fake(model="x")
    ctx = TournamentContext(provider=judge, cache=MemoryCache())
    assert ctx.resolve_provider(seed=1) is judge


def test_mock_by_name_is_seeded_from_the_run() -> None:
    provider = TournamentContext(provider="mock").resolve_provider(seed=42)
    assert isinstance(provider, MockLLMProvider)
    assert provider.seed == 42


def test_unknown_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="'claude'"):
        TournamentContext(provider="claude").resolve_provider(seed=1)  # type: ignore[arg-type]


def _fake_module(monkeypatch: pytest.MonkeyPatch, path: str, name: str) -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []

    class Provider(_Fake):
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)
            super().__init__(model=kwargs.get("model", "default"))

    module = types.ModuleType(path)
    setattr(module, name, Provider)
    monkeypatch.setitem(sys.modules, path, module)
    return made


@pytest.mark.parametrize(
    ("name", "path", "cls"),
    [
        ("openai", "llm_qualitative_sort.providers.openai", "OpenAIProvider"),
        ("google", "llm_qualitative_sort.providers.google", "GoogleProvider"),
    ],
)
def test_named_providers_are_imported_lazily_and_get_the_model(
    monkeypatch: pytest.MonkeyPatch, name: str, path: str, cls: str
) -> None:
    made = _fake_module(monkeypatch, path, cls)
    ctx: Any = TournamentContext(provider=name, model="m-1")
    provider = ctx.resolve_provider(seed=1)
    assert made == [{"model": "m-1"}]
    assert provider.model == "m-1"
    TournamentContext(provider=ctx.provider).resolve_provider(seed=1)
    assert made[-1] == {}  # no model given: the provider's own default



async def test_the_graph_runs_without_any_context_on_the_seeded_mock() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    state = await graph.ainvoke(
        {"items": ["300", "100", "200"], "criteria": "larger", "seed": 1},
        {"configurable": {"thread_id": "no-context"}},
    )
    assert state["rankings"][0] == (1, ["300"])
