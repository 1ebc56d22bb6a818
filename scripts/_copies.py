"""Copies of the package's code compared in one benchmark (`--src NAME=PATH`).

Each copy is a `src/` folder (for example the code before a change, checked out in a
`git worktree`); a benchmark runs itself again as a child in a fresh interpreter with that
folder on `PYTHONPATH`, and reads the child's last line as JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

THIS_SRC = Path(__file__).resolve().parents[1] / "src"


def copies(specs: list[str]) -> dict[str, str]:
    """`NAME=PATH` specs as {name: absolute path}; this checkout's `src/` when none."""
    named = dict(spec.split("=", 1) for spec in specs) or {"this": str(THIS_SRC)}
    return {name: str(Path(src).resolve()) for name, src in named.items()}


def run_child(script: str, src: str, *args: str) -> dict[str, Any]:
    """`python script *args` with the copy `src` on the path; its last line's JSON."""
    done = subprocess.run([sys.executable, script, *args], env={**os.environ, "PYTHONPATH": src},
                          check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def mean_sd(values: list[float]) -> tuple[float, float]:
    """The mean and the sample standard deviation (0 for a single value)."""
    return statistics.mean(values), statistics.stdev(values) if len(values) > 1 else 0.0
