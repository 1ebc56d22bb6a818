"""Start-up time of the command line, against a bare interpreter in the same run.

Usage:

    python scripts/bench_startup.py [REPEATS]

Times, as medians of REPEATS interleaved runs (default 15), in fresh processes:
`python -c pass` (the floor), `llm-qualitative-sort --help`, `sort --help`, `--version`,
and `import llm_qualitative_sort.sorter` (what a real sort loads before its first call).
Prints a Markdown table with each figure as a ratio to the floor.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass": ["-c", "pass"],
    "llm-qualitative-sort --help": ["-m", "llm_qualitative_sort", "--help"],
    "llm-qualitative-sort sort --help": ["-m", "llm_qualitative_sort", "sort", "--help"],
    "llm-qualitative-sort --version": ["-m", "llm_qualitative_sort", "--version"],
    "import llm_qualitative_sort.sorter": ["-c", "import llm_qualitative_sort.sorter"],
}


def _once(args: list[str]) -> float:
    started = time.perf_counter()
    # No check: an older version without a command still counts as a start-up.
    subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for args in CASES.values():  # warm the file cache once
        _once(args)
    for _ in range(repeats):
        for name, args in CASES.items():  # interleaved, so load spikes hit every case
            times[name].append(_once(args))
    floor = statistics.median(times["python -c pass"])
    print(f"median of {repeats} runs each, Python {sys.version.split()[0]}\n")
    print("| command | median s | × `python -c pass` |")
    print("|---|---|---|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"| `{name}` | {median:.3f} | {median / floor:.1f} |")


if __name__ == "__main__":
    main()
