"""The `llm-qualitative-sort` command line: `sort` files or stdin, or run the `demo`.

Example:
    >>> main(["sort", "--dry-run", "--criteria", "larger", "/dev/null"])
    items: 0
    matches: 0 … 0 (fewer when matches are drawn)
    LLM calls: 0 … 0 (2 per match; cache hits cost nothing)
    dry run: nothing was called
    0
"""

from llm_qualitative_sort.cli._main import (
    EXIT_DETACHED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_USAGE,
    main,
)

__all__ = [
    "EXIT_DETACHED",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "main",
]
