"""Trials of a woken ex-holder at random moments, on SQLite and on PostgreSQL.

Each trial: holder A plays a sort (pipelined, or with the default rounds schedule: see
--schedule); it is suspended (SIGSTOP) after a random number of calls, for longer than the
lease's TTL; B takes the run over and plays a random number of calls; A is woken
(SIGCONT); B is killed at a random moment after; C resumes to the end.
B must hold the run before A is woken (a trial where A woke first tested nothing); the
one exception, counted apart, is A stopped inside an SQLite write, which keeps the file
locked until A wakes. Counted per trial: paid calls A started once woken (must be 0),
pairings A made once woken that the resumed run kept, items played after their
elimination, and whether C finished.
The scenario lives in tests/system/woken_holder.py.

    python scripts/trial_woken_holder.py --trials 20 \\
        --dsn postgresql://postgres@127.0.0.1:5432/postgres --schedule rounds
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import uuid
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "system"))

from woken_holder import Outcome, Scenario  # noqa: E402


def _database(server: str) -> str:
    name = f"lqs_trial_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    info = conninfo_to_dict(server)
    user = info.get("user")
    return (f"postgresql://{user + '@' if user else ''}{info.get('host', '127.0.0.1')}:"
            f"{info.get('port', '5432')}/{name}")


def _drop(server: str, dsn: str) -> None:
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {dsn.rsplit('/', 1)[1]} WITH (FORCE)")


def trial(store: str, server: str, rng: random.Random, schedule: str) -> Outcome:
    """One trial on `store` ("sqlite" or "postgres") with `schedule`."""
    with tempfile.TemporaryDirectory() as tmp:
        if store == "sqlite":
            return Scenario(Path(tmp), str(Path(tmp) / "runs.sqlite3"), rng, schedule).run()
        dsn = _database(server)
        try:
            return Scenario(Path(tmp), dsn, rng, schedule).run()
        finally:
            _drop(server, dsn)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dsn", default=os.environ.get("LLM_QUALITATIVE_SORT_TEST_POSTGRES"))
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--schedule", choices=("pipelined", "rounds"), default="pipelined")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failed_any = False
    for store in args.stores.split(","):
        failures, calls, untaken = 0, 0, 0
        for number in range(1, args.trials + 1):
            note = ""
            try:
                outcome = trial(store, args.dsn, rng, args.schedule)
                problems = outcome.failures()
                if outcome.taken_over:
                    calls += outcome.calls_after_wake
                else:
                    untaken += 1
                    note = " (A stopped inside an SQLite write: no takeover possible)"
            except Exception as exc:  # a harness failure counts as a failed trial
                problems = [f"{type(exc).__name__}: {exc}"]
            failures += bool(problems)
            print(f"{store} trial {number}: {'; '.join(problems) or 'ok'}{note}", flush=True)
        print(f"{store} ({args.schedule}): {args.trials} trials, {failures} failed, "
              f"{untaken} without a takeover, {calls} paid call(s) started by A once woken "
              "after one", flush=True)
        failed_any = failed_any or failures > 0
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
