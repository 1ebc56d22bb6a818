"""A run as the command line describes it, which of its settings are kept, and how to resume it.

`RunConfig` declares each setting with its type and default; its metadata (`Setting`) says
whether it is kept with the run (`stored`), whether it shapes the result so that a resumed
run must keep it (`fixed`), and whether an environment variable may give it (`env`). A new
setting is one more field. Where a value comes from (flags, the stored run, the environment,
the config file) is `_settings.layered`'s business: built directly, a `RunConfig` holds what
it is given and the defaults.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from llm_qualitative_sort.cli._parser import PROGRAM
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.stores.postgres_connect import is_dsn, redact

if TYPE_CHECKING:
    from llm_qualitative_sort.tournament import StrategySettings


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


@dataclass(frozen=True)
class Setting:
    """What the command line does with a setting besides using it (see the module's doc)."""

    fixed: bool = False
    stored: bool = True
    env: bool = False


FIXED = Setting(fixed=True)
FIXED_ENV = Setting(fixed=True, env=True)
ENV = Setting(env=True)
UNSTORED = Setting(stored=False)
UNSTORED_ENV = Setting(stored=False, env=True)


class RunConfig(BaseSettings):
    """Everything that shapes a run, whichever subcommand described it."""

    # Validated when built; set freely after (a new run's id and drawn seed, a report's path).
    model_config = SettingsConfigDict(extra="forbid")

    criteria: Annotated[str, FIXED] = ""
    run_id: Annotated[str, UNSTORED] = ""
    provider: Annotated[str, FIXED_ENV] = "mock"
    model: Annotated[str | None, FIXED_ENV] = None
    base_url: Annotated[str | None, FIXED_ENV] = None
    chat_model: Annotated[str | None, FIXED] = None
    chat_model_args: Annotated[dict[str, Any], FIXED] = {}
    # A panel: each "PROVIDER[:MODEL]" is one judge; empty for a single judge.
    judges: Annotated[list[str], FIXED] = []
    elimination_count: Annotated[int, FIXED] = 2
    comparison_rounds: Annotated[int | None, FIXED] = None
    strategy: Annotated[str, FIXED] = "elimination"
    schedule: Annotated[str, FIXED] = "rounds"
    budget: Annotated[int | None, FIXED] = None
    budget_tokens: Annotated[int | None, FIXED] = None
    top_k: Annotated[int | None, FIXED] = None
    stop_when_settled: Annotated[bool | None, FIXED] = None
    prepass: Annotated[str | None, FIXED] = None
    group_size: Annotated[int | None, FIXED] = None
    pairing: Annotated[str | None, FIXED] = None
    # Pointwise: "LOW-HIGH" or a JSON file of labels (kept as given: a resume reads it again;
    # a run stored with the labels themselves holds a list).
    scale: Annotated[Any, FIXED] = None
    inverse: Annotated[bool | None, FIXED] = None
    repetitions: Annotated[int | None, FIXED] = None
    ties: Annotated[bool | None, FIXED] = None
    verdicts: Annotated[str | None, FIXED] = None
    # The judge's prompt: a template file or "builtin:LANG", and the JSON file of its
    # context. Kept as paths: a resume reads them again, and the run refuses changed ones.
    prompt: Annotated[str | None, FIXED] = None
    context: Annotated[str | None, FIXED] = None
    # People's labels (a CSV or JSONL file naming items by their ids): kept as its path;
    # the run keeps the labels themselves, and a resume goes on with those.
    human: Annotated[str | None, FIXED] = None
    seed: Annotated[int | None, FIXED] = None
    ranking: str | None = None
    wait: Annotated[float, UNSTORED] = 0.0
    concurrency: Annotated[int, ENV] = 10
    timeout: float | None = None
    requests_per_second: float | None = None
    rate_wait_limit: float | None = None
    input_price_per_million: float | None = None
    output_price_per_million: float | None = None
    cache_dir: Annotated[str | None, ENV] = None
    out: str | None = None
    lang: str | None = None
    excel: bool | None = None
    mkdir: Annotated[bool | None, UNSTORED] = None
    mock_latency: float = 0.0
    mock_tie_margin: Annotated[float, FIXED] = 0.0
    mock_logprobs: Annotated[str | None, FIXED] = None
    source: dict[str, Any] = {}
    checkpoint: Annotated[str | None, UNSTORED_ENV] = None
    progress: Annotated[str, UNSTORED] = "auto"
    verbose: Annotated[bool, UNSTORED] = False
    resume: Annotated[bool, UNSTORED] = False
    batch: bool = False
    batch_discount: float = 0.5
    batch_poll: float = 10.0
    detach: Annotated[bool, UNSTORED] = False

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only what it is given: a run rebuilt from its stored settings reads no environment.

        The command line's own order of sources is `_settings.layered`'s.
        """
        return (init_settings,)

    def stored_settings(self) -> dict[str, Any]:
        """The settings kept with the run (no path of the store, nothing secret).

        A database URI (a `--cache-dir` in PostgreSQL) is kept without its password.
        """
        kept = {name: getattr(self, name) for name in setting_names(stored=True)}
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


def setting_names(*, fixed: bool | None = None, env: bool | None = None,
                  stored: bool | None = None) -> list[str]:
    """Names of the settings, optionally only the fixed, stored or env-given ones (or not)."""
    return [name for name in RunConfig.model_fields
            if (fixed is None or _role(name).fixed == fixed)
            and (env is None or _role(name).env == env)
            and (stored is None or _role(name).stored == stored)]


def _role(name: str) -> Setting:
    found = (m for m in RunConfig.model_fields[name].metadata if isinstance(m, Setting))
    return next(found, Setting())
