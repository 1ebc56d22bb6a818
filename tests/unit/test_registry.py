"""The provider registry: one table the CLI, Studio, the key lookup and the reports read."""

from __future__ import annotations

import argparse

import pytest

from llm_qualitative_sort.cli._parser import build_parser
from llm_qualitative_sort.providers import GoogleProvider, LLMProvider, OpenAIProvider
from llm_qualitative_sort.providers.registry import (
    BATCH_PROVIDERS,
    NAMED_PROVIDERS,
    PROVIDER_NAMES,
    REGISTRY,
    build_provider,
    provider_class,
)
from llm_qualitative_sort.reports._text import judge_name


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_every_entry_names_its_provider_class(name: str) -> None:
    found = provider_class(name)
    assert issubclass(found, LLMProvider) and found.__name__ == REGISTRY[name].class_name


def test_the_command_line_offers_the_registrys_names() -> None:
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction))
    sort = commands.choices["sort"]
    provider = next(a for a in sort._actions if "--provider" in a.option_strings)
    assert tuple(provider.choices) == PROVIDER_NAMES
    assert set(NAMED_PROVIDERS) < set(PROVIDER_NAMES)  # langchain needs its chat model
    assert set(BATCH_PROVIDERS) == {"openai", "google"}


@pytest.mark.parametrize(("name", "cls"), [("openai", OpenAIProvider),
                                            ("google", GoogleProvider)])
def test_hosted_providers_find_their_key_in_the_registrys_variable(
    name: str, cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable = REGISTRY[name].key_variable
    assert variable is not None
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ValueError, match=f"{cls.__name__} needs an API key.*{variable}"):
        build_provider(name)
    monkeypatch.setenv(variable, "test-key")
    judge = build_provider(name, model="m-2", batch=True)
    assert isinstance(judge, cls) and judge.model == "m-2"
    assert judge.batch_client() is not None  # batch mode, with the key found
    assert "test-key" not in judge.model_identity


def test_a_compatible_server_needs_no_key_but_batch_mode_does(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = build_provider("openai", base_url="http://127.0.0.1:8080/v1")
    assert local.batch_client() is None
    with pytest.raises(ValueError, match="batch mode needs OpenAI's Batch API"):
        build_provider("openai", base_url="http://127.0.0.1:8080/v1", batch=True)


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_reports_name_a_judge_as_the_command_line_does(name: str) -> None:
    assert judge_name(f"{REGISTRY[name].class_name}:m-1@https://x#prompt1").split()[0] == name
