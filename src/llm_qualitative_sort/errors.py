"""Every exception the package raises on purpose, in one tree under `Error`.

Error:
    ├── InputError (also a ValueError)        a setting, item, file or template refused
    │   │                                     before any call; the message names it
    │   ├── SettingTypeError (also TypeError) a value of the wrong type
    │   ├── PromptTemplateError               a prompt template that cannot be used
    │   ├── RunMismatchError                  a run id reused with other items or settings
    │   └── UnknownRunError (also a KeyError) no run of that id in the store
    ├── MissingExtra (also an ImportError)    an optional dependency is not installed
    ├── ProviderError                         a judge could not answer
    │   ├── TransientProviderError            worth trying again (5xx, a timeout)
    │   │   └── RateLimitedError              HTTP 429: flow control, not a failure
    │   ├── PermanentProviderError            no retry can fix it (a bad key, a bad model)
    │   │   └── QuotaExceededError            a quota is used up
    │   └── InvalidAnswerError (ValueError)   an answer whose fields are not valid
    ├── StorageError (also a ValueError)      a checkpoint, journal, store or cache that
    │   │                                     cannot be used; the message names it
    │   ├── CacheError (also a RuntimeError)  an answer cache that cannot be used
    │   ├── DamagedJournalError               a journal row that cannot be read
    │   └── LeaseStoreBusyError               the lease store is locked by another process
    ├── RunStoppedError (also RuntimeError)   a run stopped; everything so far is saved
    │   └── RunLockedError                    another process holds the run
    └── RunDetached                           a batch run stopped instead of waiting

`except llm_qualitative_sort.Error` catches every refusal and every stop; the built-in
second bases keep `except ValueError` (and the others named) working as before.

Provider implementations raise `TransientProviderError` for failures worth retrying (rate
limits, 5xx, timeouts, dropped connections) and `PermanentProviderError` for failures that
no retry can fix (bad key, unknown model, invalid request). The engine turns either, when it
stops a run, into a `RunStoppedError` that carries the run id and says how to resume.
"""

from __future__ import annotations

from typing import Protocol


class Error(Exception):
    """The base of every exception the package raises on purpose."""


class InputError(Error, ValueError):
    """A setting, item, file or template refused before any call; the message names it."""


class SettingTypeError(InputError, TypeError):
    """A setting or item of the wrong type, refused before any call."""


class PromptTemplateError(InputError):
    """A template that cannot be used, named with its part, line and variable."""


class MissingExtra(Error, ImportError):
    """An optional dependency (an extra of this package) is not installed."""


class ProviderError(Error):
    """A provider could not produce an answer."""


class TransientProviderError(ProviderError):
    """A failure that a later attempt may not repeat.

    Args:
        message: What happened.
        retry_after: Seconds the server asked us to wait, if it said so.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentProviderError(ProviderError):
    """A failure that retrying cannot fix; the run stops at once."""


class RateLimitedError(TransientProviderError):
    """The server refused a call for its rate limit (HTTP 429), not for the call itself.

    Flow control, not a failure: the engine slows the judge's calls down and, while the
    server says when to come back, tries the call again without counting an attempt.

    Args:
        message: What happened.
        retry_after: Seconds the server asked us to wait, if it said so.
        facts: The rate-limit headers or details of the answer (a `RateFacts`), if any.
    """

    def __init__(self, message: str, *, retry_after: float | None = None,
                 facts: object = None) -> None:
        super().__init__(message, retry_after=retry_after)
        self.facts = facts


class InvalidAnswerError(ProviderError, ValueError):
    """A provider answered with a result whose fields are not valid."""


class QuotaExceededError(PermanentProviderError):
    """A quota is used up (billing, a per-day limit): no wait within the run will help.

    Attributes:
        quota: The quota's name as the provider gave it (`insufficient_quota`, say).
    """

    def __init__(self, message: str, *, quota: str) -> None:
        super().__init__(message)
        self.quota = quota


class RunStoppedError(Error, RuntimeError):
    """A run stopped before its end; everything finished so far is saved.

    Attributes:
        run_id: The id to pass to `QualitativeSorter.resume` to continue the run.
        reason: Why it stopped, without the advice on resuming (for callers that give
            their own, such as the command line).
        input_saved: False when the run stopped before its input reached the store (a
            storage failure in its first moments): it cannot be resumed, and is started
            again with `sort(items, run_id=run_id)`, which reuses the journaled answers.
        first: What to do before resuming, when a resume alone would stop the same way
            (a damaged journal row: see `DamagedJournalError`); None otherwise.
    """

    def __init__(self, message: str, *, run_id: str, input_saved: bool = True,
                 first: str | None = None) -> None:
        advice = (f"continue it with `await sorter.resume({run_id!r})`" if input_saved else
                  "its input was not saved, so it cannot be resumed: start it again with "
                  f"`await sorter.sort(items, run_id={run_id!r})`, which reuses the answers "
                  "already paid for")
        if first is not None:  # a resume alone would stop the same way
            advice = f"{first}; then {advice}"
        super().__init__(f"{message} (run id {run_id!r}; {advice})")
        self.run_id = run_id
        self.reason = message
        self.input_saved = input_saved
        self.first = first


class RunHolder(Protocol):
    """Who holds a run, as `RunLockedError` reports it: a lease's `LeaseHolder`.

    Named by its shape here, so that the error tree stays below the leases that raise it.
    """

    @property
    def run_id(self) -> str:
        """The run."""

    @property
    def host(self) -> str:
        """The holder's host name."""

    @property
    def pid(self) -> int:
        """The holder's process id."""

    @property
    def started(self) -> float:
        """When it took the run (seconds since the epoch)."""

    @property
    def heartbeat(self) -> float:
        """Its last sign of life (seconds since the epoch)."""

    def describe(self, now: float | None = None) -> str:
        """Who holds the run, since when, and when it was last heard of."""


class RunLockedError(RunStoppedError):
    """Another process holds the run (or took it over): this one makes no call.

    A run is held by one process at a time, so that two processes never pay twice for the
    same comparisons. Wait for the holder with `QualitativeSorter(wait_for_run=...)`, or
    continue the run once it has stopped.

    Attributes:
        holder: Who holds the run: host, pid, since when, last heartbeat.
    """

    def __init__(self, message: str, *, run_id: str, holder: RunHolder) -> None:
        super().__init__(message, run_id=run_id)
        self.holder = holder


class StorageError(Error, ValueError):
    """A checkpoint, journal, run store or cache cannot be used: the message names it and why.

    Raised before any LLM call when the file is a directory, not SQLite, or damaged; during
    a run (a full disk, a failing device) it stops the run through `RunStoppedError`, whose
    message says how many paid calls could not be saved.
    """


class CacheError(StorageError, RuntimeError):
    """A cache file cannot be used (corrupt, unreadable, or not a cache)."""


class LeaseStoreBusyError(StorageError):
    """Another process keeps the lease store locked (inside a write) for now."""


class DamagedJournalError(StorageError):
    """A row of the run journal cannot be read; every resume would read it again.

    The message says which row of which table of which journal, and the way on: move the
    journal file aside, or delete that row (the calls it held that no checkpoint has are
    then asked again).

    Attributes:
        damage: What is damaged: the journal, its table and row, the run and round.
        steps: What to do before resuming, each as (words, command), in order of choice.
    """

    def __init__(self, damage: str, steps: list[tuple[str, str]]) -> None:
        super().__init__(f"{damage}; every resume reads it again: {self.remedy_of(steps)}, "
                         "then resume the run")
        self.damage = damage
        self.steps = steps

    @property
    def remedy(self) -> str:
        """The steps in one phrase ("move the journal aside: `mv …`; or …")."""
        return self.remedy_of(self.steps)

    @staticmethod
    def remedy_of(steps: list[tuple[str, str]]) -> str:
        """`steps` in one phrase."""
        return "; or ".join(f"{words}: `{command}`" for words, command in steps)


class RunMismatchError(InputError):
    """A run id was reused with items or settings that differ from the stored run."""


class UnknownRunError(InputError, KeyError):
    """No run of the id given is kept in the store (`resume` of a run never saved)."""


class RunDetached(Error):
    """A batch-mode run with `detach` stopped instead of waiting for its batch.

    The round's batch is submitted and recorded: the provider works on it while no process
    waits. `QualitativeSorter.resume(run_id)` continues from whatever state the batch is in
    (with `detach` again: checks once, collects what ended, submits the next round).

    Attributes:
        reason: What the run is waiting on, in words.
        run_id: The id to pass to `QualitativeSorter.resume`.
        batches: The ids of the provider batches the run is waiting on.
    """

    def __init__(self, message: str, *, run_id: str, batches: list[str]) -> None:
        super().__init__(
            f"{message}; nothing waits for it now (run id {run_id!r}; continue it with "
            f"`await sorter.resume({run_id!r})`)"
        )
        self.reason = message
        self.run_id = run_id
        self.batches = batches


# How an error is shown: never raising, never megabytes long (a provider may put a whole
# response body in its exception).

# Characters of an exception's message shown in a failure message; a provider may put a
# whole response body (megabytes) in its exception.
MESSAGE_LIMIT = 2000


def cut(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """`text`, cut to `limit` characters with the cut said.

    Example:
        >>> cut("abcdef", 3)
        'abc… [3 more characters cut]'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"


def message_of(exc: BaseException) -> str:
    """`str(exc)`, or a note when that itself fails (a provider's broken `__str__`)."""
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - any failure of foreign code is shown, not raised
        try:
            why = f"{type(inner).__name__}: {inner}"
        except Exception:  # noqa: BLE001
            why = type(inner).__name__
        return f"<its message cannot be shown: str() raised {cut(why, 200)}>"


def describe(exc: BaseException) -> str:
    """The exception's type and message, cut to a sane length.

    Some exceptions (a bare `TimeoutError`) have no message; one whose `__str__` raises is
    named with that failure.
    """
    message = cut(" ".join(message_of(exc).split()))
    return f"{type(exc).__name__}: {message}" if message else f"{type(exc).__name__} (no message)"


# What to run when an optional extra is missing. The name `llm-qualitative-sort` on PyPI
# belongs to another project (which also imports as `llm_qualitative_sort`): advice to install
# `llm-qualitative-sort[openai]` by name would fetch that project instead of adding the extra
# to this one, so every hint installs from this project's own folder.

def install_hint(extra: str) -> str:
    """The command that adds `extra` to an installation of this project.

    Args:
        extra: The name of an optional dependency group in pyproject.toml.

    Returns:
        The pip command, run from this project's folder, and why not by name.

    Example:
        >>> print(install_hint("postgres").split(" in ")[0])
        pip install -e ".[postgres]"
    """
    return (
        f'pip install -e ".[{extra}]" in this project\'s folder '
        '(the "llm-qualitative-sort" on PyPI is another project)'
    )
