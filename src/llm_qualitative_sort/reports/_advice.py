"""Settings named in a report's advice, spelt for the front end that wrote the report.

A report written by the command line (`sort --out`, `runs report`) advises flags
(`--strategy swiss --top-k 10`); one written from Python (`write_report`, `to_html`)
advises the sorter's arguments (`strategy=Swiss(top_k=10)`).
"""

from __future__ import annotations

import json
from typing import Literal, get_args

from llm_qualitative_sort.errors import InputError

FrontEnd = Literal["python", "cli"]
FRONT_ENDS: tuple[str, ...] = get_args(FrontEnd)


def check_front_end(front_end: str) -> FrontEnd:
    """`front_end` if it is one of `FRONT_ENDS`.

    Raises:
        ValueError: It is not.
    """
    if front_end == "cli":
        return "cli"
    if front_end == "python":
        return "python"
    raise InputError(f"front_end must be one of {', '.join(FRONT_ENDS)}, not {front_end!r}")


def spelt(front_end: FrontEnd, **settings: object) -> str:
    """The settings as the front end takes them, in the order given.

    Example:
        >>> spelt("cli", strategy="swiss", top_k=10)
        '--strategy swiss --top-k 10'
        >>> spelt("python", strategy="swiss", top_k=10)
        'strategy=Swiss(top_k=10)'
        >>> spelt("python", comparison_rounds=4)
        'comparison_rounds=4'
    """
    if front_end == "cli":
        return " ".join(f"--{name.replace('_', '-')} {value}" for name, value in settings.items())
    named = settings.pop("strategy", None)
    given = ", ".join(f"{name}={_python(value)}" for name, value in settings.items())
    # In Python a strategy's settings live in its settings object (`Swiss`, ...).
    return f"strategy={str(named).capitalize()}({given})" if named else given


def panel(front_end: FrontEnd) -> str:
    """How the front end makes a panel of judges (no words: the reports are in two languages).

    Example:
        >>> panel("cli")
        '--judge PROVIDER:MODEL --judge PROVIDER:MODEL'
    """
    if front_end == "cli":
        return "--judge PROVIDER:MODEL --judge PROVIDER:MODEL"
    return "PanelProvider([...])"


def _python(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
