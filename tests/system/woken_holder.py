"""The woken-holder scenario, shared by the tests and scripts/trial_woken_holder.py.

Holder A runs a sort (pipelined, or with the rounds schedule) and is suspended (SIGSTOP) for
longer than the lease's TTL; B takes the run over; A is woken (SIGCONT); B is killed; C
resumes. What must hold: A writes nothing to the journal and starts no paid call once woken,
and the resumed run plays no item after its elimination and keeps no pairing A made from
its stale view.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _forked as forked

WORKER = Path(__file__).with_name("woken_worker.py")
TTL = 1.5
N_ITEMS, CONCURRENCY, ELIMINATION = 24, 4, 2
# Bounds on waits for the processes (seconds): generous for a loaded machine, and only
# reached when something is stuck.
BOUND = 300.0


@dataclass
class Outcome:
    """What one trial saw."""

    journal_rows_after_wake: int = 0  # rows A wrote once woken (B was held)
    calls_after_wake: int = 0  # paid calls A started once woken
    stale_pairings_kept: int = 0  # A's post-wake pairings in the resumed run's history
    played_after_elimination: list[Any] = field(default_factory=list)
    a_exit: int | None = None
    a_message: str = ""
    finished: bool = False
    # False when A was stopped inside an SQLite write: the file stays locked until A wakes,
    # so nobody can take the run over, and A rightly goes on once woken.
    taken_over: bool = True

    def failures(self) -> list[str]:
        """What went wrong, if anything."""
        found = []
        if self.journal_rows_after_wake:
            found.append(f"A wrote {self.journal_rows_after_wake} journal row(s) once woken")
        if self.calls_after_wake and self.taken_over:
            found.append(f"A started {self.calls_after_wake} paid call(s) once woken")
        if self.stale_pairings_kept and self.taken_over:
            found.append(f"{self.stale_pairings_kept} stale pairing(s) of A kept")
        if self.played_after_elimination:
            found.append(f"played after elimination: {self.played_after_elimination}")
        if not self.finished:
            found.append("the resumed run did not finish")
        return found


class Scenario:
    """One trial's processes and files.

    Args:
        tmp: A fresh directory.
        checkpoint: A path in `tmp`, or a fresh database's DSN.
        rng: Chooses the moments (or None: fixed moments, B held while A wakes).
        schedule: The sorts' schedule, "pipelined" or "rounds".
    """

    def __init__(self, tmp: Path, checkpoint: str, rng: random.Random | None = None,
                 schedule: str = "pipelined") -> None:
        self.tmp, self.checkpoint, self.rng = tmp, checkpoint, rng
        self.schedule = schedule
        self.processes: list[forked.Forked] = []
        self.outcome = Outcome()

    def config(self, name: str, **extra: Any) -> Path:
        config = {"checkpoint": self.checkpoint, "run_id": "shared",
                  "items": [str(i * 7 % 101) for i in range(N_ITEMS)], "latency": 0.3,
                  "concurrency": CONCURRENCY, "lease_ttl": TTL, "schedule": self.schedule,
                  "call_log": str(self.tmp / "calls.log"),
                  "pairing_log": str(self.tmp / "pairings.log"),
                  "out": str(self.tmp / f"{name}.out.json"), **extra}
        path = self.tmp / f"{name}.json"
        path.write_text(json.dumps(config))
        return path

    def start(self, name: str, **extra: Any) -> forked.Forked:
        process = forked.start([sys.executable, str(WORKER), str(self.config(name, **extra))])
        self.processes.append(process)
        return process

    def lines(self, log: str) -> list[list[str]]:
        path = self.tmp / log
        return [line.split("|") for line in path.read_text().splitlines()] if path.exists() else []

    def out(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = json.loads((self.tmp / f"{name}.out.json").read_text())
        return found

    def wait_for(self, condition: Any, what: str, timeout: float = BOUND) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited too long for {what}")
            time.sleep(0.01)

    def run(self) -> Outcome:
        """Play the trial; always leaves no process behind."""
        try:
            self._play()
        finally:
            for process in self.processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGCONT)
                    process.kill()
                    process.wait(timeout=30)
        return self.outcome

    def _play(self) -> None:
        rng = self.rng
        first_calls = rng.randint(4, 40) if rng else 12
        if rng:  # at a random moment, maybe inside a journal commit or a lease step
            a = self.start("a")
            self.wait_for(lambda: len(self._calls_by(a.pid)) >= first_calls
                          or a.poll() is not None, "A's calls")
            self._check_alive(a, "before it was suspended")
            time.sleep(rng.uniform(0, 0.3))
            a.send_signal(signal.SIGSTOP)
        else:  # A stops itself as its 12th call starts
            a = self.start("a", stop_after=first_calls)
        self.wait_for(lambda: _stopped(a) or a.poll() is not None, "A's suspension")
        self._check_alive(a, "before it was suspended")
        hold = self.tmp / "b.go"
        b = self.start("b", wait_for_run=None, **({} if rng else {"hold_file": str(hold)}))
        if rng:
            taken = rng.randint(0, 30)
            self.wait_for(lambda: len(self._calls_by(b.pid)) >= taken or b.poll() is not None,
                          "B's calls")
            # B must hold the run before A wakes: a trial where A wakes first tests nothing
            # (A rightly goes on), and was once counted as a failure.
            self.wait_for(lambda: self.holder_pid() == b.pid or b.poll() is not None
                          or self._written_by_stopped_a(), "B's takeover")
            self.outcome.taken_over = self.holder_pid() == b.pid
        else:
            # Every slot of B waits on a call (unpaid): its pairings were committed before
            # their calls started, and none can be made until a call ends.
            self.wait_for(lambda: self._waiting(hold) >= CONCURRENCY or b.poll() is not None,
                          "B's calls")
            self._check_alive(b, "before its calls")
        calls_before = len(self.lines("calls.log"))
        pairings_before = len(self.lines("pairings.log"))
        rows_before = self.journal_rows()
        a.send_signal(signal.SIGCONT)
        if rng:
            time.sleep(rng.uniform(0, 2 * TTL))
        else:
            a.wait(timeout=BOUND)
            self.outcome.journal_rows_after_wake = self.journal_rows() - rows_before
        b.kill()
        b.wait(timeout=BOUND)
        self.outcome.a_exit = a.wait(timeout=BOUND)
        if self.outcome.a_exit == 3:
            self.outcome.a_message = self.out("a")["message"]
        woken_calls = [c for c in self.lines("calls.log")[calls_before:] if int(c[0]) == a.pid]
        self.outcome.calls_after_wake = len(woken_calls)
        c = self.start("c", resume=True, latency=0.0)
        assert c.wait(timeout=BOUND) == 0, self.out("c")
        self._judge(self.out("c")["history"], a.pid, pairings_before)

    def _judge(self, history: list[list[Any]], a_pid: int, pairings_before: int) -> None:
        self.outcome.finished = True
        losses: Counter[int] = Counter()
        for seq, a, b, winner in history:
            for player in (a, b):
                if losses[player] >= ELIMINATION:
                    self.outcome.played_after_elimination.append([seq, player])
            if winner == "A":
                losses[b] += 1
            elif winner == "B":
                losses[a] += 1
        pairings = self.lines("pairings.log")
        stale = {tuple(map(int, p[1:])) for p in pairings[pairings_before:] if int(p[0]) == a_pid}
        sound = {tuple(map(int, p[1:])) for i, p in enumerate(pairings)
                 if int(p[0]) != a_pid or i < pairings_before}
        kept = {(seq, a, b) for seq, a, b, _ in history}
        self.outcome.stale_pairings_kept = len((stale - sound) & kept)

    def holder_pid(self) -> int | None:
        """The pid on the run's lease row, or None."""
        if self.checkpoint.startswith("postgresql://"):
            import psycopg

            with psycopg.connect(self.checkpoint) as conn:
                row = conn.execute("SELECT pid FROM llm_qualitative_sort_leases "
                                   "WHERE run_id = 'shared'").fetchone()
        else:
            conn = sqlite3.connect(f"file:{self.tmp / 'runs.journal.sqlite3'}?mode=ro",
                                   uri=True, timeout=30)
            try:
                row = conn.execute("SELECT pid FROM leases WHERE run_id = 'shared'").fetchone()
            finally:
                conn.close()
        return None if row is None else int(row[0])

    def _written_by_stopped_a(self) -> bool:
        """Whether the SQLite file's write lock is kept (by A, stopped inside a write)."""
        if self.checkpoint.startswith("postgresql://"):
            return False
        conn = sqlite3.connect(self.tmp / "runs.journal.sqlite3", timeout=0,
                               isolation_level=None)
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.rollback()
            return False
        except sqlite3.OperationalError:
            # Kept this long (the wait is polled), it is no passing write of B's.
            time.sleep(2 * TTL)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.rollback()
                return False
            except sqlite3.OperationalError:
                return True
        finally:
            conn.close()

    @staticmethod
    def _check_alive(process: forked.Forked, when: str) -> None:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[-1]} ended (status {process.returncode}) {when}")

    @staticmethod
    def _waiting(hold: Path) -> int:
        """How many of B's calls wait on `hold` (0 before the first)."""
        try:
            return int(Path(str(hold) + ".waiting").read_text())
        except FileNotFoundError:
            return 0

    def _calls_by(self, pid: int) -> list[list[str]]:
        return [c for c in self.lines("calls.log") if int(c[0]) == pid]

    def journal_rows(self) -> int:
        """Rows inserted into the journal's calls and pairings tables so far.

        PostgreSQL numbers its rows; in SQLite, triggers (added at the first look) count them.
        """
        if self.checkpoint.startswith("postgresql://"):
            import psycopg

            with psycopg.connect(self.checkpoint) as conn:
                row = conn.execute(
                    "SELECT (SELECT COALESCE(MAX(seq), 0) FROM llm_qualitative_sort_journal)"
                    " + (SELECT COALESCE(MAX(seq), 0) FROM llm_qualitative_sort_pairings)"
                ).fetchone()
            return int(row[0]) if row else 0
        conn = sqlite3.connect(self.tmp / "runs.journal.sqlite3", timeout=30)
        try:
            with conn:
                conn.execute("CREATE TABLE IF NOT EXISTS inserted (tbl TEXT)")
                for table in ("calls", "pairings"):
                    conn.execute(f"CREATE TRIGGER IF NOT EXISTS count_{table} AFTER INSERT ON "
                                 f"{table} BEGIN INSERT INTO inserted VALUES ('{table}'); END")
            row = conn.execute("SELECT COUNT(*) FROM inserted").fetchone()
        finally:
            conn.close()
        return int(row[0])


def _stopped(process: forked.Forked) -> bool:
    """Whether `process` is stopped by a signal (state T in /proc/PID/stat; Linux)."""
    try:
        stat = Path(f"/proc/{process.pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "T"
