"""Run settings that reach the nodes through LangGraph's `Runtime`, never through state."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.types import RetryPolicy

from llm_qualitative_sort._journal import Journal
from llm_qualitative_sort.cache import ComparisonCache
from llm_qualitative_sort.errors import TransientProviderError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.mock import MockLLMProvider

DEFAULT_RETRY = RetryPolicy(
    initial_interval=1.0,
    backoff_factor=2.0,
    max_interval=60.0,
    max_attempts=6,
    jitter=True,
    retry_on=TransientProviderError,
)


@dataclass
class TournamentContext:
    """Who judges and how calls are made.

    `provider` is a provider object, or the name of one ("mock", "openai", "google") when
    the graph is driven as plain data (LangGraph Studio); named providers read their keys
    from the environment.
    """

    provider: LLMProvider | str = "mock"
    model: str | None = None
    max_concurrent_requests: int = 10
    cache: ComparisonCache | None = None
    retry: RetryPolicy = DEFAULT_RETRY
    run_id: str = ""
    journal: Journal = field(default_factory=Journal)

    def resolve_provider(self, seed: int) -> LLMProvider:
        """The provider object; a name is built here (the mock is seeded from the run)."""
        if isinstance(self.provider, LLMProvider):
            return self.provider
        if self.provider == "mock":
            return MockLLMProvider(seed=seed)
        raise ValueError(f"unknown provider {self.provider!r}; expected 'mock'")
