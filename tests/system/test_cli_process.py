"""The command line as a real process: signals, a closed pipe, start-up imports, help.

The commands run in processes forked from a server that has imported the package (`_forked`),
except those about what a start imports, which start a fresh interpreter."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import _forked as forked
import pytest

import llm_qualitative_sort
from llm_qualitative_sort.cli import EXIT_CLOSED_OUTPUT, EXIT_OK, EXIT_USAGE

SRC = str(Path(llm_qualitative_sort.__file__).parents[1])
ITEMS = [str(n) for n in range(10, 400, 10)]  # 39 items


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC, "LLM_QUALITATIVE_SORT_HOME": str(tmp_path / "h")}


def _cli(tmp_path: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return forked.run([sys.executable, "-m", "llm_qualitative_sort", *args],
                      env=_env(tmp_path), capture_output=True, text=True, encoding="utf-8",
                      timeout=120, cwd=tmp_path, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_cleanly_and_the_printed_command_resumes(tmp_path,
                                                                        signum) -> None:
    (tmp_path / "a.txt").write_text("\n".join(ITEMS))
    db = tmp_path / "runs.db"
    command = [sys.executable, "-m", "llm_qualitative_sort", "sort", str(tmp_path / "a.txt"),
               "--criteria", "larger", "--seed", "3", "--concurrency", "2",
               "--mock-latency", "0.02", "--progress", "lines", "--checkpoint", str(db)]
    # As from a terminal: a suite run under nohup would pass SIGHUP on ignored.
    with forked.start(command, env=_env(tmp_path), stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True, encoding="utf-8",
                      foreground=True) as process:
        assert process.stderr is not None
        started = process.stderr.readline()
        # The run id is printed when the run starts, with the seed that was drawn.
        assert started.startswith("run ") and " started (39 items, seed 3, " in started
        assert process.stderr.readline().startswith("round 1:")
        # In the middle of round 2's calls: a stop in the instant round 1's reassignment is
        # checkpointed trips the engine defect noted in test_cli.py's Ctrl-C test.
        time.sleep(0.1)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    name = signal.Signals(signum).name
    assert err.startswith(f"stopped by {name}\nrun id ") and "Traceback" not in err
    resume = shlex.split(err.splitlines()[-1])
    assert resume[1:3] == ["sort", "--resume"]
    # The calls finished before the signal are kept: the journal holds more than round 1.
    shown = _cli(tmp_path, "runs", "show", resume[3], "--json", "--checkpoint", str(db))
    assert json.loads(shown.stdout)["calls"] >= 2 * 19
    finished = _cli(tmp_path, *resume[1:], "--progress", "none")
    assert finished.returncode == EXIT_OK, finished.stderr
    straight = _cli(tmp_path, *command[3:11], "--progress", "none", "--checkpoint",
                    str(tmp_path / "b.db"))
    assert finished.stdout == straight.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path) -> None:
    lines = [f"{n:05d} " + "x" * 150 for n in range(600)]  # more than a pipe's buffer
    (tmp_path / "a.txt").write_text("\n".join(lines))
    command = [sys.executable, "-m", "llm_qualitative_sort", "sort", str(tmp_path / "a.txt"),
               "--criteria", "longer", "--progress", "none", "--elimination-count", "1",
               "--out", str(tmp_path / "r.json")]
    with forked.start(command, env=_env(tmp_path), stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE, text=True, encoding="utf-8") as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().split()[0] in ("1", "1=")
        process.stdout.close()  # `| head -1`
        err = process.stderr.read()
        process.wait(timeout=60)
    assert process.returncode == EXIT_CLOSED_OUTPUT, err
    assert "error" not in err and "Traceback" not in err and "Exception" not in err
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["standings"]  # still written



def _sort_with_progress(tmp_path: Path) -> list[str]:
    (tmp_path / "a.txt").write_text("\n".join(ITEMS))
    return [sys.executable, "-m", "llm_qualitative_sort", "sort", str(tmp_path / "a.txt"),
            "--criteria", "larger", "--progress", "lines", "--mock-latency", "0.02",
            "--out", str(tmp_path / "r.json")]


def test_stdout_and_stderr_into_one_reader_that_stops_early_finish_the_run(tmp_path) -> None:
    """`sort ... 2>&1 | head -1`: the progress lines meet the closed pipe before the ranking."""
    read, write = os.pipe()
    with forked.start(_sort_with_progress(tmp_path), env=_env(tmp_path), stdout=write,
                      stderr=write) as process:
        os.close(write)
        with open(read, encoding="utf-8") as reader:
            assert reader.readline().startswith("run ")  # "run … started"
        process.wait(timeout=120)
    assert process.returncode == EXIT_CLOSED_OUTPUT
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert len(report["standings"]) == len(ITEMS)  # the run finished and was reported


def test_a_reader_of_stderr_alone_that_stops_early_leaves_the_ranking_whole(tmp_path) -> None:
    """`sort ... 2>&1 >ranking.txt | head -1`: the ranking is printed in full all the same."""
    with (tmp_path / "ranking.txt").open("w") as ranking, forked.start(
            _sort_with_progress(tmp_path), env=_env(tmp_path), stdout=ranking,
            stderr=subprocess.PIPE, text=True, encoding="utf-8") as process:
        assert process.stderr is not None
        assert process.stderr.readline().startswith("run ")
        process.stderr.close()
        process.wait(timeout=120)
    assert process.returncode == EXIT_CLOSED_OUTPUT
    assert len((tmp_path / "ranking.txt").read_text("utf-8").splitlines()) == len(ITEMS)
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["standings"]


HEAVY = ("langgraph", "langchain_core", "langchain_openai", "aiosqlite", "numpy", "pydantic",
         "llm_qualitative_sort.graph", "llm_qualitative_sort.providers",
         "llm_qualitative_sort.sorter")
# The provider registry (names and strings only) lives with the providers: parsing reads it
# and nothing else of theirs, since the package loads its names on first use.
REGISTRY = ("llm_qualitative_sort.providers", "llm_qualitative_sort.providers.registry")


@pytest.mark.parametrize("args", [["--help"], ["sort", "--help"], ["runs", "list", "--help"],
                                  ["--version"], ["sort", "--bogus"]])
def test_parsing_and_help_import_neither_the_graph_nor_the_providers(tmp_path, args) -> None:
    probe = ("import sys\nfrom llm_qualitative_sort.cli import main\n"
             f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
             f"print(sorted(m for m in sys.modules\n"
             f"             if m.startswith({HEAVY!r}) and m not in {REGISTRY!r}))")
    done = subprocess.run([sys.executable, "-c", probe], env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


def test_an_unknown_option_shows_the_subcommands_usage(tmp_path) -> None:
    done = _cli(tmp_path, "sort", "items.txt", "--criteria", "c", "--elimination-cout", "3")
    assert done.returncode == EXIT_USAGE
    assert done.stderr.startswith("usage: llm-qualitative-sort sort ")
    assert "unrecognized arguments: --elimination-cout 3" in done.stderr
    assert "did you mean --elimination-count?" in done.stderr
    assert "see 'llm-qualitative-sort sort --help'" in done.stderr


def test_version(tmp_path) -> None:
    done = _cli(tmp_path, "--version")
    assert done.stdout.strip() == f"llm-qualitative-sort {llm_qualitative_sort.__version__}"


def test_a_missing_provider_extra_is_a_usage_error_naming_the_fix(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n")
    probe = ("import sys\nsys.modules['langchain_openai'] = None  # as if not installed\n"
             "from llm_qualitative_sort.cli import main\n"
             f"sys.exit(main(['sort', {str(tmp_path / 'a.txt')!r}, '--criteria', 'c', "
             "'--provider', 'openai']))")
    env = {**_env(tmp_path), "OPENAI_API_KEY": "sk-test"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == EXIT_USAGE, done.stderr
    assert 'pip install -e ".[openai]"' in done.stderr
    assert "internal error" not in done.stderr
