"""The storage seam: where a run's checkpoints, run journal, batch records and lease live.

A `Store` is chosen once, from what `checkpointer=` is (see `stores.store_for`): an SQLite
file, a PostgreSQL database, or memory / a custom LangGraph saver. Everything a run does
with storage goes through it: hold the run (`lease`), open the saver and the run journal
(`connect`), and, for the command line, look at the stored runs (`runs`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
)

from llm_qualitative_sort.stores.answers import CallAnswer
from llm_qualitative_sort.stores.entries import Answer, CallFacts, CallPlace
from llm_qualitative_sort.stores.leases import RunLease
from llm_qualitative_sort.stores.leases._fence import Fence

if TYPE_CHECKING:
    from llm_qualitative_sort.stores.batch_journal import BatchJob


class BatchRecords(Protocol):
    """The batch records of one round (see `stores.batch_journal.BatchJournal`)."""

    def jobs(self) -> list[BatchJob]:
        """The round's batches, in the order they were submitted."""

    def save(self, job: BatchJob) -> None:
        """Record (or update) a batch, committed at once."""

    def answers(self) -> dict[tuple[int, int], list[dict[str, Any]]]:
        """Answers without a verdict kept for each (match, call), oldest first."""

    def close_job(self, job: BatchJob, kept: dict[tuple[int, int], dict[str, Any]]) -> None:
        """Mark a batch as read, with the answers to ask again, in one transaction."""

    def forget(self) -> None:
        """Drop the round's records."""

    def close(self) -> None:
        """Let go of what the records hold open."""


@runtime_checkable
class RunJournal(Protocol):
    """Finished calls of runs, committed before they are acted on (see `stores.journal.Journal`).

    `put` only records; a flush scheduled on the event loop commits every call that
    finished in the same turn of the loop, and runs before any code those calls wake.
    """

    @property
    def where(self) -> str:
        """Where the journal is kept, for messages (never a password)."""

    def fence(self, fence: Fence) -> None:
        """Write for `fence`'s run only while this process holds it (see `Journal.fence`)."""

    def confirm(self) -> None:
        """Raise `RunLockedError` if this process no longer holds its run (see `Fence`)."""

    def get(self, place: CallPlace) -> tuple[CallAnswer, bool] | None:
        """The journaled answer and whether it came from the user's cache, or None."""

    def entry(self, place: CallPlace) -> Answer | None:
        """The journaled answer, whether it came from the user's cache, and its facts."""

    def put(
        self,
        place: CallPlace,
        result: CallAnswer,
        *,
        cached: bool,
        facts: CallFacts | None = None,
    ) -> None:
        """Record a finished call with its facts (committed by the next flush)."""

    def put_pairing(self, run_id: str, seq: int, pairing: list[int]) -> None:
        """Record pairing number `seq` of a pipelined run, before its calls start."""

    def pairings(self, run_id: str) -> dict[int, list[int]]:
        """The pairings recorded for a run and not yet settled, by number."""

    def settle(self, run_id: str, rounds: Iterable[int], pairings_below: int = 0) -> None:
        """Drop the calls of `rounds` and the pairings below `pairings_below`.

        A checkpoint now saved holds them; committed with the next flush.
        """

    def flush(self) -> None:
        """Commit what was recorded; never raises (a failure is kept for `check`)."""

    def check(self) -> None:
        """Raise `StorageError` if finished calls cannot be written (after one more try).

        Raises `RunLockedError` if this process no longer holds the run (`confirm`).
        """

    def expect_input(self, run_id: str) -> None:
        """A new run: its paid calls wait until its input is saved (see `input_saved`)."""

    def input_written(self, run_id: str, failure: BaseException | None = None) -> None:
        """The run's saver saved a checkpoint of it (its input first), or failed to."""

    async def input_saved(self, run_id: str) -> None:
        """Wait until a new run's input is saved; raise `StorageError` if it could not be.

        Before every paid call and batch: a run killed after paying can then always be
        resumed, never only started again.
        """

    def unsaved_calls(self) -> int:
        """Paid calls whose rows could not be written (after one more try)."""

    def forget(self, run_id: str) -> None:
        """Drop a finished run's calls and pairings."""

    def close(self) -> None:
        """Flush (a last try) and close."""

    def batch_records(self, run_id: str, round_number: int) -> BatchRecords:
        """The batch records of a round, kept with the journal."""

    def batches_in_flight(self, run_id: str, round_number: int) -> list[str]:
        """The batches of a round that may still be at the provider, read only."""


class Settling:
    """A saver mixin that tells the run journal what each saved checkpoint holds.

    A node that writes results to the history also writes `settled` (the journal rounds
    those results came from) and, in the pipelined schedule, `paired` (the pairings the
    checkpoint holds); once the checkpoint is saved, their journal rows are no longer
    needed, so the journal holds only the last round or two, whatever the run's length.
    Mixed into the savers the stores make; a saver the user gives keeps every row until
    the run finishes.
    """

    journal: RunJournal

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save, then settle the journal rows the checkpoint holds.

        A process that lost its run saves nothing: its state is stale, and the newest
        checkpoint is the one a resume starts from.
        """
        self.journal.confirm()
        run_id = str(config["configurable"]["thread_id"])
        try:
            saved: RunnableConfig = await super().aput(  # type: ignore[misc]
                config, checkpoint, metadata, new_versions)
        except BaseException as exc:  # a new run's calls must not wait on it forever
            self.journal.input_written(run_id, exc)
            raise
        # Checkpoints are saved in order: the first one saved holds the run's input.
        self.journal.input_written(run_id)
        values = checkpoint["channel_values"]
        settled = values.get("settled")
        if settled:
            self.journal.settle(run_id, settled, values.get("paired", 0))
        return saved


_Saver = TypeVar("_Saver", bound=BaseCheckpointSaver[Any])
_SETTLING: dict[type[Any], type[Any]] = {}


def settling_saver(saver_class: type[_Saver], journal: RunJournal, *args: Any) -> _Saver:
    """A `saver_class(*args)` that settles `journal` after each save (see `Settling`)."""
    made = _SETTLING.get(saver_class)
    if made is None:
        made = _SETTLING[saver_class] = type(f"Settling{saver_class.__name__}",
                                             (Settling, saver_class), {})
    saver: _Saver = made(*args)
    saver.journal = journal  # type: ignore[attr-defined]
    return saver


class Catalog(Protocol):
    """Settings of runs that the checkpoint does not hold (see `stores.catalog.RunCatalog`)."""

    async def put(self, run_id: str, settings: dict[str, Any], ids: list[Any]) -> None:
        """Keep a run's settings and its items' ids."""

    async def get(self, run_id: str) -> dict[str, Any]:
        """The run's record, or {}."""

    async def delete(self, run_id: str) -> None:
        """Forget a run."""


class StoredRuns(ABC):
    """The runs of one store, opened for listing, inspecting and deleting them."""

    saver: BaseCheckpointSaver[Any]
    catalog: Catalog
    lease: RunLease

    @abstractmethod
    async def run_ids(self) -> list[str]:
        """Every run with a checkpoint, oldest first."""

    @abstractmethod
    async def first_checkpoint_id(self, run_id: str) -> str | None:
        """The id of a run's first checkpoint, or None."""

    @abstractmethod
    async def journal_counts(
        self, run_id: str, skip_rounds: Iterable[int] = ()
    ) -> dict[str, int] | None:
        """Counts over a run's journaled calls, or None when no journal is kept.

        `skip_rounds` are left out: the checkpoint holds them.

        The keys: calls, cache_hits, failed_calls, input_tokens, output_tokens.
        """

    @abstractmethod
    async def delete_rows(self, run_id: str) -> None:
        """Delete what the store keeps of a run beside its checkpoints (journal, catalog)."""


class Store(ABC):
    """Where runs are kept, chosen once per sorter.

    Attributes:
        lease: Who holds each run now (one holder per run).
        path: The SQLite checkpoint file, or None for other stores.
    """

    lease: RunLease
    path: Path | None = None

    @property
    @abstractmethod
    def where(self) -> str:
        """Where the runs are kept, for messages (a path, or a DSN without its password)."""

    async def prepare(self) -> None:
        """Checks and set-up before the run is held (a directory, tables); no-op by default.

        Raises:
            StorageError: The store cannot be used (named in the message).
        """
        return None

    @abstractmethod
    def connect(self) -> AbstractAsyncContextManager[tuple[BaseCheckpointSaver[Any], RunJournal]]:
        """Open the saver and the run journal, for the length of one run call."""

    @abstractmethod
    def runs(self, *, create: bool = False) -> AbstractAsyncContextManager[StoredRuns]:
        """Open the stored runs for the command line (`create`: start an empty store).

        Raises:
            StorageError: Nothing is kept there (unless `create`), or it is not a run store.
        """

    def compact(self) -> int | None:
        """Give deleted rows' space back; the bytes freed, or None when not measured.

        By default nothing (a database server reuses the space on its own).
        """
        return None

    @asynccontextmanager
    async def open(
        self, run_id: str, *, wait: float | None = 0.0
    ) -> AsyncIterator[tuple[BaseCheckpointSaver[Any], RunJournal]]:
        """Hold `run_id` and yield the saver and the run journal.

        Raises:
            StorageError: The store cannot be used (before any call).
            RunLockedError: Another process holds the run (see `RunLease.hold`).
        """
        await self.prepare()
        async with self.lease.hold(run_id, wait=wait) as me, self.connect() as opened:
            opened[1].fence(self.lease.fence(me))
            yield opened
