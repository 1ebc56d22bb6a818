"""A run interrupted before its input reached the checkpoint says to start it again.

Ctrl-C (or a `task.cancel()`) in a new run's first moments can land before LangGraph has
written the run's input: such a run cannot be resumed ("no run"), so the stop must not
advise a resume. Started again under the same id, it replays the journaled answers. A run
interrupted after its input was written is still told to resume.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from _suite import cli, items_file
from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.cli import EXIT_INTERRUPTED, EXIT_OK
from llm_qualitative_sort.stores.sqlite_saver import OneTripSqliteSaver

ITEMS = [str(i * 7 % 101) for i in range(8)]


def interrupt_at_write(monkeypatch: pytest.MonkeyPatch, number: int,
                       interrupt: Callable[[], None]) -> None:
    """Call `interrupt` as the run's checkpoint writes number `number` go out.

    The first writes are the run's input: those are lost, as when the process stops before
    they reach the disk. Later ones are written, then the interrupt comes.
    """
    real = OneTripSqliteSaver.aput_writes
    seen = [0]

    async def writes(self: OneTripSqliteSaver, *args: Any, **kwargs: Any) -> None:
        seen[0] += 1
        this = seen[0]  # writes overlap: others may start while this one is awaited
        if this == number == 1:
            interrupt()
            await asyncio.sleep(0.5)  # the interrupt lands here; the writes never go out
            return
        await real(self, *args, **kwargs)
        if this == number:
            interrupt()

    monkeypatch.setattr(OneTripSqliteSaver, "aput_writes", writes)


def ctrl_c() -> None:
    # What the terminal sends: `asyncio.run` turns it into a cancel of the run's task.
    signal.raise_signal(signal.SIGINT)


def ctrl_c_at_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str], run_id: str,
                    number: int) -> tuple[list[str], int, str]:
    """A command-line sort under `run_id`, Ctrl-C'd at checkpoint write `number`.

    Returns the command, its exit code and its standard error.
    """
    command = ["sort", items_file(tmp_path, ITEMS), "--criteria", "larger",
               "--checkpoint", str(tmp_path / "runs.sqlite3"), "--run-id", run_id]
    interrupt_at_write(monkeypatch, number, ctrl_c)
    code, _, err = cli(capsys, *command)
    return command, code, err


def test_ctrl_c_before_the_input_is_saved_says_to_run_the_command_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    command, code, err = ctrl_c_at_write(tmp_path, monkeypatch, capsys, "first", 1)
    assert code == EXIT_INTERRUPTED
    assert "interrupted" in err
    assert "it stopped before its input was saved, so it cannot be resumed" in err
    assert "run the same command again with --run-id first" in err and "--resume" not in err
    monkeypatch.undo()
    code, out, err = cli(capsys, *command)  # as told
    assert code == EXIT_OK, err
    assert out


def test_ctrl_c_after_the_input_is_saved_says_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, code, err = ctrl_c_at_write(tmp_path, monkeypatch, capsys, "later", 4)
    assert code == EXIT_INTERRUPTED
    assert "--resume later" in err and "before its input was saved" not in err
    monkeypatch.undo()
    code, _, err = cli(capsys, "sort", "--resume", "later",
                       "--checkpoint", str(tmp_path / "runs.sqlite3"))
    assert code == EXIT_OK, err


async def cancelled_at_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> tuple[QualitativeSorter, BaseException]:
    """A sort of run "r" whose task is cancelled at its checkpoint writes `number` (see
    `interrupt_at_write`): the sorter, and the `CancelledError` its sort raised."""
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=tmp_path / "runs.sqlite3")
    run: list[asyncio.Task[Any]] = []
    interrupt_at_write(monkeypatch, number, lambda: run[0].cancel())
    run.append(asyncio.create_task(sorter.sort(ITEMS, run_id="r")))
    with pytest.raises(asyncio.CancelledError) as cancelled:
        await run[0]
    monkeypatch.undo()
    return sorter, cancelled.value


async def test_a_cancel_before_the_input_is_saved_says_to_start_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sorter, cancelled = await cancelled_at_write(tmp_path, monkeypatch, 1)
    assert cancelled.input_saved is False  # type: ignore[attr-defined]
    notes = " ".join(getattr(cancelled, "__notes__", []))
    assert "start it again with sorter.sort(items, run_id='r')" in notes
    assert "resume" not in notes
    result = await sorter.sort(ITEMS, run_id="r")
    assert result.statistics.total_api_calls > 0


async def test_a_cancel_after_the_input_is_saved_says_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sorter, cancelled = await cancelled_at_write(tmp_path, monkeypatch, 4)
    assert cancelled.input_saved is True  # type: ignore[attr-defined]
    assert "resume with sorter.resume(run_id)" in " ".join(cancelled.__notes__)
    assert (await sorter.resume("r")).rankings


async def test_the_cheap_look_agrees_with_the_whole_state_at_every_checkpoint(
    tmp_path: Path
) -> None:
    """`input_saved` reads the latest checkpoint where it can; at each checkpoint a run
    leaves (its input, the step before `standing` is set, every later step) it must say
    what reading the whole state says."""
    from llm_qualitative_sort.cli._inventory import RunInventory
    from llm_qualitative_sort.graph import build_graph
    from llm_qualitative_sort.running.stored import input_saved, stored_run

    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                               checkpointer=tmp_path / "runs.sqlite3")
    await sorter.sort(ITEMS, run_id="r")
    async with RunInventory.open(tmp_path / "runs.sqlite3") as runs:
        graph = build_graph(runs.saver)
        # Listed first: the saver reads one query at a time.
        stored = [c async for c in runs.saver.alist({"configurable": {"thread_id": "r"}})]
        seen = []
        for checkpoint in stored:
            at: Any = checkpoint.config
            whole = bool(await stored_run(graph, at))
            assert await input_saved(graph, at) == whole, checkpoint.metadata
            seen.append(whole)
    assert True in seen and False in seen  # the input's own checkpoint holds no items yet
