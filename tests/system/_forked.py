"""Python processes for the tests, forked from a server that has already imported the package.

A test that kills a sort and resumes it needs a process of its own for each run; started
with `python worker.py`, each one spends well over a second importing LangGraph, LangChain and
the package before it does anything, and the suite starts a hundred of them. Here a server
process (the standard library's `forkserver`) imports those modules once; every process a
test starts is forked from it, runs the same command line as `python ...` would (a script, `-m
module` or `-c code`, with the test's environment, working directory and output streams) and
exits with the status that command would give, or dies of the signal the test sends.

The server has only imported modules, as a fresh interpreter would before running the
command: nothing it inherits was run. Tests that are about the cost or the side effects of
imports themselves (the cold imports, `--help`, a missing extra) still start a real
interpreter.

`start(...)` returns an object with the part of `subprocess.Popen` these tests use (`pid`,
`args`, `poll()`, `wait()`, `communicate()`, `send_signal()`, `kill()`, `returncode`, pipes
for `stdout` and `stderr`); `run(...)` is `subprocess.run`.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import runpy
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from multiprocessing import reduction, spawn
from pathlib import Path
from typing import IO, Any

# What a worker imports before it runs: loaded once in the server, inherited by every fork.
PRELOAD = [
    "llm_qualitative_sort",
    "llm_qualitative_sort.cli",
    "llm_qualitative_sort.graph",
    "llm_qualitative_sort.providers.openai",
    "llm_qualitative_sort.providers.google",
    "langgraph.checkpoint.sqlite.aio",
    "langgraph.checkpoint.postgres.aio",
]

# Also for tests that start `multiprocessing` processes of their own.
context = multiprocessing.get_context("forkserver")
context.set_forkserver_preload(PRELOAD)
_preparation = spawn.get_preparation_data


def _without_main(name: str) -> dict[str, Any]:
    """What a forked process is told of this one, less its main module: the command it runs
    is its own, so it must not run this process's `__main__` (a script) again first."""
    data: dict[str, Any] = _preparation(name)
    data.pop("init_main_from_path", None)
    data.pop("init_main_from_name", None)
    return data


spawn.get_preparation_data = _without_main


class _Inherited:
    """A file descriptor handed to the forked process (sent over the server's socket)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, ...]:
        return (_detach, (reduction.DupFd(self.fd),))


def _detach(duplicate: Any) -> int:
    fd: int = duplicate.detach()
    return fd


def _stream(stream: int | IO[Any] | None, default: int) -> tuple[int, int | None]:
    """(the descriptor the process gets, the read end this side keeps for a pipe)."""
    if stream is None:
        return default, None  # as a subprocess would: the test's own stream (pytest's capture)
    if stream == subprocess.PIPE:
        read, write = os.pipe()
        return write, read
    if isinstance(stream, int):
        return stream, None
    return stream.fileno(), None


class Forked:
    """A started process (the part of `subprocess.Popen` the tests use)."""

    def __init__(self, args: list[str], process: Any, pipes: dict[int, int],
                 text: bool, encoding: str | None) -> None:
        self.args = args
        self._process = process
        opened: dict[int, IO[Any]] = {
            target: (open(fd, encoding=encoding or "utf-8") if text or encoding
                     else open(fd, "rb"))
            for target, fd in pipes.items()}
        self.stdout: IO[Any] | None = opened.get(1)
        self.stderr: IO[Any] | None = opened.get(2)

    @property
    def pid(self) -> int:
        pid: int = self._process.pid
        return pid

    @property
    def returncode(self) -> int | None:
        code: int | None = self._process.exitcode
        return code

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        code = self.returncode
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def communicate(self, timeout: float | None = None) -> tuple[Any, Any]:
        """Read the pipes to their end, then wait, as `Popen.communicate` does."""
        read: dict[str, Any] = {}
        readers = [threading.Thread(target=lambda n=name, s=stream: read.__setitem__(n, s.read()),
                                    daemon=True)
                   for name, stream in (("out", self.stdout), ("err", self.stderr))
                   if stream is not None and not stream.closed]
        deadline = None if timeout is None else time.monotonic() + timeout
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        self._close()
        return read.get("out"), read.get("err")

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass  # it ended since the poll

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def _close(self) -> None:
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()
        self.wait()


def start(
    args: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
    stdout: int | IO[Any] | None = None, stderr: int | IO[Any] | None = None,
    text: bool = False, encoding: str | None = None, foreground: bool = False,
) -> Forked:
    """Start `args` (`[sys.executable, script | -m module | -c code, ...]`) in a forked process.

    `env` replaces the environment and `cwd` the working directory (default: this process's);
    `stdout` and `stderr` take a file, a descriptor or `subprocess.PIPE` (default: this
    process's), read as text with `text` or `encoding`. With `foreground`, SIGINT, SIGTERM
    and SIGHUP are at their defaults in the process (SIGINT a `KeyboardInterrupt`), as in one
    started from a terminal: a suite started in the background of a non-interactive shell
    inherits SIGINT ignored (under `nohup`, SIGHUP), and Python keeps an inherited SIG_IGN,
    so the signal a test sends in place of the user's Ctrl-C would do nothing.
    """
    argv = [str(arg) for arg in args]
    if len(argv) < 2 or argv[0] != sys.executable:
        raise ValueError(f"not a Python command line: {argv!r}")
    given = {1: _stream(stdout, 1), 2: _stream(stderr, 2)}
    environment = dict(os.environ if env is None else env)
    process = context.Process(
        target=_child, daemon=False,
        args=(argv[1:], environment, os.getcwd() if cwd is None else str(cwd),
              {target: _Inherited(fd) for target, (fd, _) in given.items()}, foreground))
    try:
        process.start()
    finally:
        for fd, read in given.values():
            if read is not None:
                os.close(fd)  # the process has its own copy of the pipe's write end
    pipes = {target: read for target, (_, read) in given.items() if read is not None}
    return Forked(argv, process, pipes, text, encoding)


def run(
    args: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
    capture_output: bool = False, text: bool = False, encoding: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run` for a forked process (see `start`)."""
    pipe = subprocess.PIPE if capture_output else None
    process = start(args, env=env, cwd=cwd, stdout=pipe, stderr=pipe, text=text,
                    encoding=encoding)
    try:
        out, err = process.communicate(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise
    code = process.returncode
    assert code is not None
    return subprocess.CompletedProcess(process.args, code, out, err)


def _child(args: list[str], env: dict[str, str], cwd: str, streams: dict[int, int],
           foreground: bool) -> None:
    """In the forked process: set it up as `python ARGS` would find it, run, exit like it."""
    for target, fd in streams.items():
        os.dup2(fd, target)
        os.close(fd)
    if foreground:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    code = _run(args)
    threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter does at exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _run(args: list[str]) -> int:
    try:
        if args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif args[0] == "-c":
            sys.argv = ["-c", *args[2:]]
            sys.path.insert(0, "")
            exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = list(args)
            sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as stop:
        return _exit_status(stop.code)
    except KeyboardInterrupt:
        # As the interpreter ends on an uncaught Ctrl-C: killed by SIGINT.
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    except BaseException as error:  # as the interpreter reports it, without this frame
        traceback.print_exception(type(error), error, error.__traceback__.tb_next
                                  if error.__traceback__ else None)
        return 1
    return 0


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
