"""Where a setting's value comes from: flags, the stored run, environment, config file, default.

`layered` hands pydantic-settings its sources in order, the first that gives a value
winning: a command-line flag; a resumed run's stored settings (a flag that contradicts one
that shapes the result is refused before: `conflicts`); the environment
(`LLM_QUALITATIVE_SORT_PROVIDER`, ...); `llm-qualitative-sort.toml` in the working directory
(or `--config FILE`); the default `RunConfig` declares. Each source checks its own values,
so that an error names the variable or the file, and the value.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType, UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    TomlConfigSettingsSource,
)

from llm_qualitative_sort.cli._config import RunConfig, setting_names
from llm_qualitative_sort.errors import InputError

CONFIG_FILE = "llm-qualitative-sort.toml"
ENV_PREFIX = "LLM_QUALITATIVE_SORT_"
# Settings a config file may give: everything but what names one run or one invocation.
_FILE_KEYS = set(setting_names()) - {"run_id", "resume", "source", "verbose"}
_ENV_NAMES = set(setting_names(env=True))
_EXPECTED: dict[Any, str] = {int: "a whole number", float: "a number", bool: "true or false",
                             dict: "a table", list: "a list of strings"}


class SettingsError(InputError):
    """A config file or environment variable holds something unusable; the message says where."""


def layered(flags: Mapping[str, Any], *, config_file: str | None,
            stored: Mapping[str, Any] | None = None) -> RunConfig:
    """The run's settings, each from the first source that gives it (None: not given).

    Args:
        flags: The settings given on the command line.
        config_file: `--config FILE`; None for `./llm-qualitative-sort.toml` if there is one.
        stored: A resumed run's settings, which beat the environment and the config file;
            a None there is a setting the run was started without, and stays so.

    Raises:
        SettingsError: A variable or the config file holds something unusable.
    """
    kept = {name: value for name, value in (stored or {}).items()
            if value is not None or _may_be_none(name)}

    # pydantic-settings asks a class for its sources, but the config file and the stored
    # run are known only per command: a class of this command's sources.
    class CommandLine(RunConfig):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (init_settings, InitSettingsSource(settings_cls, _whole(kept)),
                    _Environment(settings_cls), _ConfigFile(settings_cls, config_file))

    given = {name: value for name, value in flags.items() if value is not None}  # None: no flag
    return RunConfig(**dict(CommandLine(**given)))


def conflicts(flags: Mapping[str, Any], stored: Mapping[str, Any]) -> list[str]:
    """Flags that contradict a stored setting which shapes the result, as messages.

    A setting the stored run does not hold at all (a run started from Python has no judge
    on record) may be given.
    """
    problems = []
    for name in setting_names(fixed=True):
        given, kept = flags.get(name), stored.get(name)
        if given is not None and name in stored and given != kept:
            flag = "--" + name.replace("_", "-")
            problems.append(f"{flag} {given!r} differs from the stored run's {kept!r}")
    return problems


def env_variable(name: str) -> str:
    """The environment variable that gives the default of setting `name`."""
    return ENV_PREFIX + name.upper()


def _may_be_none(name: str) -> bool:
    kind = RunConfig.model_fields[name].annotation
    return kind is Any or type(None) in get_args(kind)


def _whole(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` with each table wrapped, so that it replaces a lower source's table whole.

    pydantic-settings merges the dicts of two sources key by key; a flag's
    `--chat-model-arg` must replace the config file's `[chat_model_args]`, as any setting
    does. The model turns the wrapper back into a dict. (The highest source, the flags,
    needs no wrapper: a table is merged only into a table.)
    """
    return {name: MappingProxyType(v) if isinstance(v, dict) else v for name, v in values.items()}


class _Environment(EnvSettingsSource):
    """The `LLM_QUALITATIVE_SORT_*` variables of the settings that take one; empty ones unset."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls, case_sensitive=True, env_prefix=ENV_PREFIX,
                         env_ignore_empty=True)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        # Only the settings that take a variable, by its upper-case name alone.
        value = self.env_vars.get(env_variable(field_name)) if field_name in _ENV_NAMES else None
        return value, field_name, False

    def __call__(self) -> dict[str, Any]:
        # Checked here, not in `prepare_field_value`: pydantic-settings would replace the
        # message, which names the variable and its value, by one naming neither.
        return {name: _from_text(name, text) for name, text in super().__call__().items()}


class _ConfigFile(TomlConfigSettingsSource):
    """`--config FILE` (which must exist), else `./llm-qualitative-sort.toml` if present."""

    def __init__(self, settings_cls: type[BaseSettings], explicit: str | None) -> None:
        path = Path(explicit) if explicit else Path.cwd() / CONFIG_FILE
        if explicit and not path.is_file():
            reason = "a directory" if path.is_dir() else "no such file"
            raise SettingsError(f"cannot read config file {path}: {reason}")
        super().__init__(settings_cls, toml_file=path)

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        path = Path(file_path)
        try:  # utf-8-sig: a file saved by Notepad starts with a byte-order mark
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(f"cannot read config file {path}: {exc}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{path}: not valid TOML ({exc})") from exc
        settings = {}
        for key, value in data.items():
            name = key.replace("-", "_")
            if name not in _FILE_KEYS:
                known = ", ".join(sorted(_FILE_KEYS))
                raise SettingsError(f"{path}: unknown setting {key!r} (known: {known})")
            settings[name] = _checked(name, value, f"{path}: {key}")
        return _whole(settings)


def _from_text(name: str, text: str) -> Any:
    """An environment variable's text as its setting's value (`"5"` is 5), checked."""
    variable = env_variable(name)
    try:
        value = _adapter(name).validate_python(text)
    except ValidationError:
        raise SettingsError(f"{variable}={text!r}: expected {_expected(name)}") from None
    return _checked(name, value, variable)


def _checked(name: str, value: Any, where: str) -> Any:
    """`value` if it has its setting's type exactly and is one its flag offers."""
    try:
        value = _adapter(name).validate_python(value, strict=True)
    except ValidationError:
        raise SettingsError(f"{where}: expected {_expected(name)}, got {value!r}") from None
    allowed = _choices().get(name)
    if allowed is not None and value not in allowed:
        raise SettingsError(f"{where}: expected one of {', '.join(map(str, allowed))}, "
                            f"got {value!r}")
    return value


@functools.cache
def _adapter(name: str) -> TypeAdapter[Any]:
    # A setting of any type (`scale`) is given as text: "1-4", or the file of its labels.
    annotation: Any = RunConfig.model_fields[name].annotation
    return TypeAdapter(str if annotation is Any else annotation)


def _expected(name: str) -> str:
    kind = RunConfig.model_fields[name].annotation
    if get_origin(kind) in (Union, UnionType):  # `X | None`: X
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    return _EXPECTED.get(get_origin(kind) or kind, "a string")


@functools.cache
def _choices() -> dict[str, tuple[Any, ...]]:
    """The values a setting may take where its flag offers a choice (`--provider`, ...)."""
    from llm_qualitative_sort.cli._parser import build_parser

    parser = build_parser()
    found: dict[str, tuple[Any, ...]] = {}
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for command in getattr(action, "choices", {}).values():
            for option in command._actions:
                if option.choices is not None and option.dest in RunConfig.model_fields:
                    found[option.dest] = tuple(option.choices)
    return found
