r"""The `llm-qualitative-sort` command line: `sort` files or stdin, `demo`, `runs`, `report`.

Example:
    >>> import pathlib, tempfile
    >>> items = pathlib.Path(tempfile.mkdtemp()) / "items.txt"
    >>> _ = items.write_text("3\n10\n7\n")
    >>> main(["sort", "--dry-run", "--criteria", "larger", str(items)])
    items: 3
    matches: 4 … 5 (fewer when matches are drawn)
    LLM calls: 8 … 10 (2 per match; cache hits cost nothing)
    tokens per call: about 453 (from the texts' mean length; about 4,530 for 10 calls)
    tokens per text: about 1,510
    rounds: about 4 (with --batch, each is one batch turnaround: up to 24 h)
    dry run: nothing was called
    0
"""

from llm_qualitative_sort.cli._exits import (
    EXIT_CLOSED_OUTPUT,
    EXIT_DETACHED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_USAGE,
)
from llm_qualitative_sort.cli._main import main

__all__ = [
    "EXIT_CLOSED_OUTPUT",
    "EXIT_DETACHED",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "main",
]
