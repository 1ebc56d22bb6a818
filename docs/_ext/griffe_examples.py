"""Griffe extension: read a Google-style "Example:" section as "Examples:".

The docstrings use the singular heading, which ruff's Google convention accepts but griffe
only knows in the plural; without this, the doctest lines of an example would be rendered
as Markdown text instead of code. Loaded by mkdocs.yml (mkdocstrings' `extensions`).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SINGULAR = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename every "Example:" section heading to "Examples:" before parsing."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the docstring of each object as it is loaded."""
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)
