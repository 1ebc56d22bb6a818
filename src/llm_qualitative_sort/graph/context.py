"""Run settings that reach the nodes through LangGraph's `Runtime`, never through state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from langgraph.types import RetryPolicy
from pydantic import ConfigDict, GetPydanticSchema
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import core_schema

from llm_qualitative_sort._calls.base import CallSettings
from llm_qualitative_sort._calls.rate_gate import RateBook
from llm_qualitative_sort.errors import TransientProviderError
from llm_qualitative_sort.prompts._run import stored_prompt
from llm_qualitative_sort.prompts.setup import PromptSetup
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.providers.panel import PanelProvider, parse_judge
from llm_qualitative_sort.providers.registry import NAMED_PROVIDERS, ProviderName, build_provider
from llm_qualitative_sort.results.events import Emit, EventSink, event_sink
from llm_qualitative_sort.stores.base import RunJournal
from llm_qualitative_sort.stores.cache import ComparisonCache
from llm_qualitative_sort.stores.sqlite import SqliteJournal
from llm_qualitative_sort.tournament.settings import StrategySettings

DEFAULT_RETRY = RetryPolicy(
    initial_interval=1.0,
    backoff_factor=2.0,
    max_interval=60.0,
    max_attempts=6,
    jitter=True,
    retry_on=TransientProviderError,
)

# Above the real clients' own request timeout (120 s), so that theirs speaks first and names
# the endpoint; this one catches custom providers that never answer.
DEFAULT_CALL_TIMEOUT = 300.0

def _default_retry() -> RetryPolicy:
    return DEFAULT_RETRY


# `RetryPolicy` is a NamedTuple whose fields hold an exception class or a function; an opaque
# schema stops pydantic from building (and warning about) a schema for those fields.
_OpaqueRetry = Annotated[RetryPolicy, GetPydanticSchema(lambda _t, _h: core_schema.any_schema())]


@dataclass
class TournamentContext:
    """Who judges and how calls are made.

    `provider` is a provider object (the library passes one), or the name of one ("mock",
    "openai", "google") when the graph is driven as plain data from LangGraph Studio or the
    API server; named providers read their keys from the environment. Only the plain fields
    (`provider` as a name, `model`, `judges`, `max_concurrent_requests`) appear in the JSON
    schema the server publishes; the object-valued ones are for in-process use. `judges`
    (["openai:gpt-5.1", "google:gemini-3.0"]) makes a `PanelProvider` of those judges
    instead of `provider`; mock judges get the run's seed plus their index.

    Example:
        >>> TournamentContext().resolve_provider(seed=3).model_identity
        'MockLLMProvider:seed=3:sd=3.33:bias=0.0:score=False'
    """

    # The API server builds a JSON schema of the context with pydantic; objects such as the
    # provider or the journal have none, so they are allowed as opaque types and skipped.
    __pydantic_config__ = ConfigDict(arbitrary_types_allowed=True)

    provider: SkipJsonSchema[LLMProvider] | ProviderName = "mock"
    model: str | None = None
    # A panel instead of `provider`: ["openai:gpt-5.1", "google:gemini-3.0"], each
    # "PROVIDER[:MODEL]" one judge (see `PanelProvider`); mock judges are seeded apart.
    judges: list[str] | None = None
    max_concurrent_requests: int = 10
    # Seconds one call may take before it counts as a transient failure (then retried).
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT
    cache: SkipJsonSchema[ComparisonCache | None] = None
    # A factory, not a default value: pydantic would try to render the policy as a default.
    retry: SkipJsonSchema[_OpaqueRetry] = field(default_factory=_default_retry)
    run_id: SkipJsonSchema[str] = ""
    # Whether nodes build progress events; the sorter turns it off when nobody listens,
    # since building them costs more per match than the orchestration itself.
    progress: SkipJsonSchema[bool] = True
    # Name the judge in every call's facts: set when a run is resumed by another judge
    # (`allow_judge_change`), so that the audit credits each call to the judge that made it.
    name_judge: SkipJsonSchema[bool] = False
    journal: SkipJsonSchema[RunJournal] = field(default_factory=SqliteJournal)
    # What a schedule keeps in the process between supersteps (the pipelined schedule's
    # engine, with its calls in flight), by run id.
    live: SkipJsonSchema[dict[str, Any]] = field(default_factory=dict)
    # The sorter's prompt, which a resume with `allow_prompt_change` uses instead of the
    # stored one; None (Studio, the API server): the prompt in the run's state.
    prompt: SkipJsonSchema[PromptSetup | None] = None
    # People's labels a sorter's run goes on with instead of the stored ones (its
    # `allow_human_change`), in their stored form; None: the labels in the run's state.
    human: SkipJsonSchema[dict[str, Any] | None] = None
    # Whether the ranking node ranks a run with people's labels by their anchored fit (as
    # Studio's runs are); the sorter ranks its result itself and turns it off.
    anchor: SkipJsonSchema[bool] = True
    # The pace of each judge's calls under its provider's rate limits, kept for the run.
    rates: SkipJsonSchema[RateBook] = field(default_factory=RateBook)
    # Each item's index, one int object per index, that every round's stored matches name
    # their players by (see `graph.nodes._book.player_indices`).
    players: SkipJsonSchema[list[int]] = field(default_factory=list)

    def run_prompt(self, state: Mapping[str, Any]) -> PromptSetup:
        """The prompt the run's calls are asked with."""
        return self.prompt if self.prompt is not None else stored_prompt(state)

    def resolve_provider(self, seed: int) -> LLMProvider:
        """The provider object; a name is built here (the mock is seeded from the run).

        Raises:
            ValueError: An unknown provider name, or two judges of a panel that are one.
        """
        if isinstance(self.provider, LLMProvider):
            return self.provider
        if self.judges:
            judges = [parse_judge(spec, NAMED_PROVIDERS) for spec in self.judges]
            members = [build_provider(name, model=model, seed=seed + i)
                       for i, (name, model) in enumerate(judges)]
            return PanelProvider(members, seed=seed)
        return build_provider(self.provider, model=self.model, seed=seed)

    def call_settings(self, state: Mapping[str, Any], rules: StrategySettings,
                      prompt: PromptSetup, **round_only: Any) -> CallSettings:
        """What the calls of a round are made with: the run's judge, cache, journal, limits.

        Args:
            state: The run's state (its seed names a built judge; its criterion is asked).
            rules: The strategy's settings (whether ties count, whether verdicts are soft).
            prompt: The round's prompt.
            **round_only: The round's own settings (`events`, a pointwise `question`).
        """
        return CallSettings(
            provider=self.resolve_provider(state["rng_seed"]), criteria=state["criteria"],
            cache=self.cache, journal=self.journal, retry=self.retry,
            max_concurrent_requests=self.max_concurrent_requests,
            call_timeout=self.call_timeout, rates=self.rates, name_judge=self.name_judge,
            rules=rules, prompt=prompt, **round_only)

    def events(self, write: Emit | None = None) -> EventSink:
        """The sink of this run's progress events, writing to `write` (None: held).

        The one place `progress` is read: when nobody listens the sink builds no event of
        a match, a call or a note.
        """
        return event_sink(self.progress, write)

