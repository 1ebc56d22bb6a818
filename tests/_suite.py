"""Helpers shared by tests in several folders (`conftest.py` puts this folder on the path).

The test folders are not packages and cannot import one another; what more than one of them
needs lives here.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

PACKAGE = "llm_qualitative_sort"
_spec = find_spec(PACKAGE)  # finds the package without running its __init__
assert _spec is not None and _spec.origin is not None
PACKAGE_ROOT = Path(_spec.origin).parent


def module_name(path: Path) -> str:
    """The dotted name of the package's module at `path`."""
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    """Every module of the package, by dotted name, in the order of their paths."""
    return {module_name(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def cli(capsys: Any, *args: str) -> tuple[int, str, str]:
    """The command line run in this process: (exit status, stdout, stderr)."""
    from llm_qualitative_sort.cli import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def items_file(tmp_path: Path, items: Sequence[str]) -> str:
    """`items` written one per line to a file under `tmp_path`; its path."""
    path = tmp_path / "items.txt"
    path.write_text("\n".join(items), encoding="utf-8")
    return str(path)
