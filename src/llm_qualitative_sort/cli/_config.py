"""A run as the command line describes it, which of its settings are kept, and how to resume it.

Each setting is a field of `RunConfig`; its metadata says whether it is kept with the run
(`stored`), whether it shapes the result so that a resumed run must keep it (`fixed`), and
which environment variable may give its default (`env`). A new setting is one more field.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort._postgres import is_dsn, redact
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.registry import NAMED_PROVIDERS, PROVIDER_NAMES

if TYPE_CHECKING:
    from llm_qualitative_sort.tournament import StrategySettings

PROGRAM = "llm-qualitative-sort"
ENV_PREFIX = "LLM_QUALITATIVE_SORT_"
PROVIDERS = PROVIDER_NAMES
# What `--judge PROVIDER[:MODEL]` may name (a LangChain chat model needs its own options).
PANEL_PROVIDERS = NAMED_PROVIDERS
RANKINGS = ("wins", "bradley_terry")
# The schedules of `graph.schedules.SCHEDULES`, named here because importing that package
# loads LangGraph, which `--help` must not (a test keeps the two the same).
SCHEDULES = ("rounds", "pipelined")


def scale_value(given: Any) -> Any:
    """`--scale`: "LOW-HIGH" as it is, else the labels of the JSON file it names.

    A resumed run's stored labels (a list) are taken as they are.

    Raises:
        ValueError: A file that cannot be read or is not JSON.
    """
    if not isinstance(given, str) or "-" in given and not Path(given).is_file():
        return given
    try:
        return json.loads(Path(given).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"--scale {given!r}: expected LOW-HIGH (such as 1-4) or a JSON file "
                         f"of labels and descriptions ({exc})") from None


# Why a pointwise run refuses the options of comparisons (it would silently ignore them).
_COMPARISONS_ONLY = {
    "ties": "ties=True applies to comparisons (strategy='elimination' or 'swiss'): "
            "strategy='pointwise' scores each text alone",
    "verdicts": "verdicts='soft' applies to the Bradley-Terry fit of comparisons: "
                "strategy='pointwise' ranks by mean scores, which use each call's label "
                "probabilities already where the judge sends them",
}


def _setting(
    default: Any = None, *, fixed: bool = False, stored: bool = True, env: bool = False
) -> Any:
    factory = default if callable(default) else None
    meta = {"fixed": fixed, "stored": stored, "env": env}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class RunConfig:
    """Everything that shapes a run, whichever subcommand described it."""

    criteria: str = _setting("", fixed=True)
    run_id: str = _setting("", stored=False)
    provider: str = _setting("mock", fixed=True, env=True)
    model: str | None = _setting(None, fixed=True, env=True)
    base_url: str | None = _setting(None, fixed=True, env=True)
    chat_model: str | None = _setting(None, fixed=True)
    chat_model_args: dict[str, Any] = _setting(dict, fixed=True)
    # A panel: each "PROVIDER[:MODEL]" is one judge; empty for a single judge.
    judges: list[str] = _setting(list, fixed=True)
    elimination_count: int = _setting(2, fixed=True)
    comparison_rounds: int | None = _setting(None, fixed=True)
    strategy: str = _setting("elimination", fixed=True)
    schedule: str = _setting("rounds", fixed=True)
    budget: int | None = _setting(None, fixed=True)
    top_k: int | None = _setting(None, fixed=True)
    stop_when_settled: bool | None = _setting(None, fixed=True)
    prepass: str | None = _setting(None, fixed=True)
    # Pointwise: "LOW-HIGH" or a JSON file of labels (kept as given: a resume reads it again).
    scale: Any = _setting(None, fixed=True)
    inverse: bool | None = _setting(None, fixed=True)
    repetitions: int | None = _setting(None, fixed=True)
    ties: bool | None = _setting(None, fixed=True)
    verdicts: str | None = _setting(None, fixed=True)
    # The judge's prompt: a template file or "builtin:LANG", and the JSON file of its
    # context. Kept as paths: a resume reads them again, and the run refuses changed ones.
    prompt: str | None = _setting(None, fixed=True)
    context: str | None = _setting(None, fixed=True)
    seed: int | None = _setting(None, fixed=True)
    ranking: str | None = _setting(None)
    wait: float = _setting(0.0, stored=False)
    concurrency: int = _setting(10, env=True)
    timeout: float | None = _setting(None)
    requests_per_second: float | None = _setting(None)
    rate_wait_limit: float | None = _setting(None)
    input_price_per_million: float | None = _setting(None)
    output_price_per_million: float | None = _setting(None)
    cache_dir: str | None = _setting(None, env=True)
    out: str | None = _setting(None)
    lang: str | None = _setting(None)
    excel: bool | None = _setting(None)
    mkdir: bool | None = _setting(None, stored=False)
    mock_latency: float = _setting(0.0)
    mock_tie_margin: float = _setting(0.0, fixed=True)
    mock_logprobs: str | None = _setting(None, fixed=True)
    source: dict[str, Any] = _setting(dict)
    checkpoint: str | None = _setting(None, stored=False, env=True)
    progress: str = _setting("auto", stored=False)
    verbose: bool = _setting(False, stored=False)
    resume: bool = _setting(False, stored=False)
    batch: bool = _setting(False)
    batch_discount: float = _setting(0.5)
    batch_poll: float = _setting(10.0)
    detach: bool = _setting(False, stored=False)

    def stored_settings(self) -> dict[str, Any]:
        """The settings kept with the run (no path of the store, nothing secret).

        A database URI (a `--cache-dir` in PostgreSQL) is kept without its password.
        """
        kept = {f.name: getattr(self, f.name) for f in fields(self) if f.metadata["stored"]}
        return {name: redact(value) if is_dsn(value) else value for name, value in kept.items()}

    def strategy_settings(self) -> StrategySettings:
        """The strategy's settings object that the flags describe (`--budget` → `budget`...).

        The one place the flags (and the config file's keys) become settings. A flag of
        another strategy is refused unless it says what that strategy's default says; the
        `--elimination-count` of another strategy is checked, then unused (as it always was).

        Raises:
            InputError: A bad setting, named as its flag's keyword.
        """
        # Imported here: the strategies load numpy, which parsing the command line must not.
        from llm_qualitative_sort.tournament import setting_names, settings_class

        chosen = settings_class(self.strategy)
        given = {name: getattr(self, name) for name in setting_names()
                 if getattr(self, name) is not None}
        if "scale" in given:
            given["scale"] = scale_value(self.scale)
        for name in [name for name in given if name not in chosen.model_fields]:
            _refuse_foreign(name, given.pop(name), chosen)
        return chosen(**given)

    def settings(self) -> dict[str, Any]:
        """What reports record about the run."""
        # Imported here: the strategies load numpy, which parsing the command line must not.
        from llm_qualitative_sort.tournament import setting_names

        # The strategies' settings by their names, as a stored run's flags keep them.
        shown = ("criteria", "provider", "model", "strategy", *setting_names(), "seed",
                 "ranking", "prompt", "context")
        settings = {name: getattr(self, name) for name in shown
                    if getattr(self, name) is not None or name in ("model", "seed")}
        if self.schedule not in (None, "rounds"):  # pipelined: its pairings follow timing
            settings["schedule"] = self.schedule
        if self.judges:
            settings.update(provider="panel", model=None, judges=", ".join(self.judges))
        return settings

    def prices(self) -> tuple[float | None, float | None]:
        """Prices of a million input and output tokens, if given."""
        return self.input_price_per_million, self.output_price_per_million

    def resume_command(self, default_checkpoint: Path | None = None) -> str:
        """The exact shell command that continues this run.

        The settings are kept with the run, so only where it is kept must be said, and only
        when that is not the default file.
        """
        words = [PROGRAM, "sort", "--resume", self.run_id]
        if self.checkpoint is not None and is_dsn(self.checkpoint):
            words += ["--checkpoint", redact(self.checkpoint)]  # a password is never shown
        elif self.checkpoint is not None:
            path = Path(self.checkpoint).resolve()
            if default_checkpoint is None or path != default_checkpoint.resolve():
                words += ["--checkpoint", str(path)]
        return shlex.join(words)


def _refuse_foreign(name: str, value: Any, chosen: type[StrategySettings]) -> None:
    """Refuse another strategy's flag unless it says what the chosen strategy does anyway.

    That is its one call per text (`--comparison-rounds 1` of a pointwise run), or the
    first owner's default (a config file's `stop_when_settled = false` for elimination).
    The `--elimination-count` of another strategy is checked, then unused, as it always was.
    """
    from llm_qualitative_sort.errors import InputError
    from llm_qualitative_sort.tournament import STRATEGIES, Elimination

    if name == "elimination_count":
        Elimination(elimination_count=value)
        return
    owners = [key for key, s in STRATEGIES.items() if name in s.settings_class.model_fields]
    says = (chosen().calls if name == "comparison_rounds"
            else STRATEGIES[owners[0]].settings_class.model_fields[name].default)
    if value != says:
        named = " or ".join(f"strategy={owner!r}" for owner in owners)
        raise InputError(_COMPARISONS_ONLY.get(name, f"{name} applies to {named} only"))


def setting_names(*, fixed: bool | None = None, env: bool | None = None) -> list[str]:
    """Names of the settings, optionally only the fixed ones or those an env var can give."""
    return [
        f.name
        for f in fields(RunConfig)
        if (fixed is None or f.metadata["fixed"] == fixed)
        and (env is None or f.metadata["env"] == env)
    ]


def env_variable(name: str) -> str:
    """The environment variable that gives the default of setting `name`."""
    return ENV_PREFIX + name.upper()
