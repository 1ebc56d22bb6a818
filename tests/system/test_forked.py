"""The forked processes the system tests start end as `python ...` would (see `_forked.py`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import _forked as forked
import pytest


def test_a_command_sees_its_arguments_environment_and_directory_and_gives_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default directory is the caller's at the start
    code = ("import json, os, sys; print(json.dumps([sys.argv, os.environ.get('X'), "
            "os.getcwd(), 'llm_qualitative_sort' in sys.modules])); sys.exit(3)")
    done = forked.run([sys.executable, "-c", code, "a", "b"], env={"X": "y"},
                      capture_output=True, text=True, timeout=60)
    argv, x, cwd, preloaded = json.loads(done.stdout)
    assert (done.returncode, argv, x, cwd) == (3, ["-c", "a", "b"], "y", str(tmp_path))
    assert preloaded  # imported by the server before the fork, as the module says


def test_a_script_runs_as_main_with_its_folder_first_on_the_path(tmp_path: Path) -> None:
    (tmp_path / "helper_module_for_forked.py").write_text("VALUE = 7\n")
    script = tmp_path / "script.py"
    script.write_text("import sys\nfrom helper_module_for_forked import VALUE\n"
                      "print(__name__, VALUE, sys.argv[1:])\n")
    done = forked.run([sys.executable, str(script), "x"], capture_output=True, text=True,
                      timeout=60)
    assert (done.returncode, done.stdout) == (0, "__main__ 7 ['x']\n")


def test_an_error_exits_1_with_its_traceback_and_a_signal_is_a_negative_status(
    tmp_path: Path,
) -> None:
    failed = forked.run([sys.executable, "-c", "raise ValueError('boom')"],
                        capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and "ValueError: boom" in failed.stderr
    assert "_forked" not in failed.stderr  # the helper's own frame is left out
    sleeper = forked.start([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(0.2)
    sleeper.send_signal(signal.SIGKILL)
    assert sleeper.wait(timeout=30) == -signal.SIGKILL
    with pytest.raises(subprocess.TimeoutExpired):
        forked.start([sys.executable, "-c", "import time; time.sleep(60)"]).wait(timeout=0.1)


def test_in_the_foreground_ctrl_c_is_a_keyboard_interrupt(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    # Ready inside the `try`: a Ctrl-C before it would be an uncaught one (killed by SIGINT).
    code = (f"import pathlib, time\ntry:\n    pathlib.Path({str(ready)!r}).touch()\n"
            "    time.sleep(60)\nexcept KeyboardInterrupt:\n    raise SystemExit(130)\n")
    process = forked.start([sys.executable, "-c", code], foreground=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 130


def test_pipes_are_read_as_they_come_and_to_their_end() -> None:
    # More than a pipe holds: the reads must run while the process writes.
    code = ("import sys\nprint('first', flush=True)\nprint('x' * 200000)\n"
            "print('err', file=sys.stderr)\n")
    with forked.start([sys.executable, "-c", code], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "first\n"
        out, err = process.communicate(timeout=60)
    assert (process.returncode, len(out), err) == (0, 200001, "err\n")
