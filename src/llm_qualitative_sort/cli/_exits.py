"""The command line's exit codes, and the error of a command that cannot run as given.

A leaf: every command module raises `UsageError` and returns these codes, and `_main`
dispatches to those modules, so they live below all of them.
"""

from llm_qualitative_sort.errors import InputError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_STOPPED = 3
EXIT_DETACHED = 4  # --detach: the batch is at the provider, nothing waits for it
EXIT_LOCKED = 5  # another process holds the run: nothing was called
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C
EXIT_CLOSED_OUTPUT = 141  # 128 + SIGPIPE, what a shell reports for `... | head`


class UsageError(InputError):
    """Options that do not fit together, or a run that cannot be used as asked."""
