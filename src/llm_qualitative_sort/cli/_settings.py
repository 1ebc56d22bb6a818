"""Where a setting's value comes from: flags, the stored run, environment, config file, default.

A command-line flag wins; a resumed run's stored settings come next (and a flag that
contradicts a setting that shapes the result is an error); then the environment
(`LLM_QUALITATIVE_SORT_PROVIDER`, ...), then `llm-qualitative-sort.toml` in the working
directory (or `--config FILE`), then the built-in default.
"""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from llm_qualitative_sort.cli._config import RunConfig, env_variable, setting_names
from llm_qualitative_sort.errors import InputError

CONFIG_FILE = "llm-qualitative-sort.toml"


def _kinds() -> dict[str, Any]:
    """Each setting's type as `RunConfig` declares it (`int | None` gives `int`)."""
    kinds = {}
    for name, hint in get_type_hints(RunConfig).items():
        if get_origin(hint) in (Union, UnionType):  # `X | None`: X
            hint = next(arg for arg in get_args(hint) if arg is not type(None))
        kinds[name] = get_origin(hint) or hint
    return kinds


# Read from the declarations, so that a new setting is typed where it is declared.
_KINDS = _kinds()
_INTS = {name for name, kind in _KINDS.items() if kind is int}
_FLOATS = {name for name, kind in _KINDS.items() if kind is float}
_BOOLS = {name for name, kind in _KINDS.items() if kind is bool}
_TABLES = {name for name, kind in _KINDS.items() if kind is dict}
_LISTS = {name for name, kind in _KINDS.items() if kind is list}
_EXPECTED: dict[Any, str] = {int: "a whole number", float: "a number", bool: "true or false",
                             dict: "a table", list: "a list of strings"}
# Settings a config file may give: everything but what names one run or one invocation.
_FILE_KEYS = set(setting_names()) - {"run_id", "resume", "source", "verbose"}


class SettingsError(InputError):
    """A config file or environment variable holds something unusable; the message says where."""


def read_config_file(explicit: str | None, cwd: Path | None = None) -> tuple[dict[str, Any], str]:
    """The settings of `explicit` (which must exist) or of `./llm-qualitative-sort.toml`.

    Returns the settings and the file's name ("" when there is none).
    """
    path = Path(explicit) if explicit else (cwd or Path.cwd()) / CONFIG_FILE
    if not explicit and not path.is_file():
        return {}, ""
    try:
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
        settings[name] = _typed(name, value, f"{path}: {key}")
    return settings, str(path)


def read_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings given by `LLM_QUALITATIVE_SORT_*` variables (empty ones are ignored)."""
    environ = os.environ if environ is None else environ
    settings = {}
    for name in setting_names(env=True):
        variable = env_variable(name)
        if environ.get(variable):
            settings[name] = _typed(name, _from_text(name, environ[variable], variable), variable)
    return settings


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


def layered(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """For each setting, the value of the first layer that gives one (None = not given)."""
    merged: dict[str, Any] = {}
    for f in fields(RunConfig):
        for layer in layers:
            if layer.get(f.name) is not None:
                merged[f.name] = layer[f.name]
                break
    return merged


def _from_text(name: str, text: str, where: str) -> Any:
    try:
        if name in _INTS:
            return int(text)
        if name in _FLOATS:
            return float(text)
    except ValueError:
        raise SettingsError(f"{where}={text!r}: expected a number") from None
    return text


def _typed(name: str, value: Any, where: str) -> Any:
    if name in _TABLES:
        ok = isinstance(value, dict)
    elif name in _LISTS:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif name in _BOOLS:
        ok = isinstance(value, bool)
    elif name in _INTS:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif name in _FLOATS:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    else:
        ok = isinstance(value, str)
    if not ok:
        raise SettingsError(f"{where}: expected {_EXPECTED.get(_KINDS.get(name), 'a string')}, "
                            f"got {value!r}")
    allowed = _choices().get(name)
    if allowed is not None and value not in allowed:
        raise SettingsError(f"{where}: expected one of {', '.join(map(str, allowed))}, "
                            f"got {value!r}")
    return value


@functools.cache
def _choices() -> dict[str, tuple[Any, ...]]:
    """The values a setting may take where its flag offers a choice (`--provider`, ...)."""
    from llm_qualitative_sort.cli._parser import build_parser

    parser = build_parser()
    found: dict[str, tuple[Any, ...]] = {}
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for command in getattr(action, "choices", {}).values():
            for option in command._actions:
                if option.choices is not None and option.dest in _KINDS:
                    found[option.dest] = tuple(option.choices)
    return found
