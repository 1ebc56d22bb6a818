"""Ctrl-C stops a command-line sort cleanly, and the command it prints resumes it."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import _forked as forked

import llm_qualitative_sort
from llm_qualitative_sort.cli import EXIT_INTERRUPTED, EXIT_OK, main

ITEMS = [str(n) for n in range(10, 200, 10)]  # 19 items

SRC = str(Path(llm_qualitative_sort.__file__).parents[1])


def test_ctrl_c_stops_cleanly_and_the_printed_command_resumes(capsys, tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC}
    (tmp_path / "a.txt").write_text("\n".join(ITEMS))
    command = [sys.executable, "-m", "llm_qualitative_sort", "sort", str(tmp_path / "a.txt"),
               "--criteria", "larger", "--seed", "3", "--concurrency", "1",
               "--mock-latency", "0.02", "--progress", "lines",
               "--checkpoint", str(tmp_path / "runs.db")]
    # Started as from a terminal, so that SIGINT is Ctrl-C even when the suite runs in the
    # background, where the process would inherit SIGINT ignored.
    with forked.start(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, encoding="utf-8", foreground=True) as process:
        assert process.stderr is not None
        assert process.stderr.readline().startswith("run ")
        assert process.stderr.readline().startswith("round 1:")
        # Interrupt in the middle of round 2's calls. (An interrupt in the instant round 1's
        # reassignment is checkpointed trips an engine bug in `_finish`, reported apart.)
        time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert err.startswith("interrupted\nrun id ") and "Traceback" not in err
    resume = shlex.split(err.splitlines()[-1])
    assert resume[1:3] == ["sort", "--resume"]
    finished = forked.run([sys.executable, "-m", "llm_qualitative_sort", *resume[1:]],
                          env=env, capture_output=True, text=True, encoding="utf-8",
                          timeout=120)
    assert finished.returncode == EXIT_OK, finished.stderr
    # The same ranking as a run that was never interrupted.
    assert main([*command[3:11], "--progress", "none", "--checkpoint", str(tmp_path / "b.db")]
                ) == EXIT_OK
    assert finished.stdout == capsys.readouterr().out
