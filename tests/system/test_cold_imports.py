"""Every module of the package imports on its own, cold, in a fresh interpreter.

A module that only imports when something else was imported first (a circle closed by a
package's `__init__`, say) works in the test suite and fails for the user who imports it
first: each module is imported cold, in a fresh interpreter of its own (forked from one
that has loaded the third-party libraries only, to keep this quick). The layers and circles
are checked without running anything in `tests/unit/test_imports.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from _suite import package_modules as _modules

# Loaded once before forking: the third-party modules the package's modules load, found by a
# first interpreter that imports them all, in the order they finished loading. The forking
# interpreter never imports the package, so each child still imports the package's modules
# from nothing (and the third-party ones it needs are already there, which keeps this quick).
DISCOVER = r"""
import importlib, json, sys
for module in sys.argv[1:]:
    try:
        importlib.import_module(module)
    except BaseException:
        pass
print(json.dumps([name for name in sys.modules
                  if name.split(".")[0] not in ("llm_qualitative_sort", "__main__")]))
"""

CHILD = r"""
import importlib, json, os, sys, traceback
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except BaseException:
        pass
assert not [m for m in sys.modules if m.split(".")[0] == "llm_qualitative_sort"]
failures = {}
for module in sys.argv[2:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            importlib.import_module(module)
            os._exit(0)
        except BaseException as exc:
            os.write(write, "".join(traceback.format_exception_only(exc)).encode())
            os._exit(1)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        message = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if status:
        failures[module] = message.strip() or f"exit status {status}"
print(json.dumps(failures))
"""

def test_every_module_imports_cold_in_a_fresh_interpreter() -> None:
    modules = _modules()
    assert len(modules) > 100  # the walk found the package
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    found = subprocess.run([sys.executable, "-c", DISCOVER, *modules], capture_output=True,
                           text=True, env=env, timeout=600, check=True)
    preload = json.loads(found.stdout.splitlines()[-1])
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(preload), *modules],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    failures = json.loads(done.stdout.splitlines()[-1])
    assert not failures, "modules that fail to import on their own:\n" + "\n".join(
        f"  {module}: {error.splitlines()[-1]}" for module, error in failures.items())


RUN_WITHOUT_LABELS = r"""
import asyncio, json, sys
from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="c", checkpointer=None,
                           strategy=Swiss(budget=40))
result = asyncio.run(sorter.sort([str(i) for i in range(20)]))
result.scores, result.intervals
print(json.dumps(sorted({m for m in sys.modules
                         if m.startswith(("scipy.stats", "scipy.optimize"))})))
"""


def test_a_run_without_labels_or_adjust_loads_no_statistics_or_optimizers() -> None:
    # SciPy's statistics and optimizers add some 30 MB to every process that imports them;
    # only people's labels, `adjust` and the length audit need them.
    found = subprocess.run([sys.executable, "-c", RUN_WITHOUT_LABELS], capture_output=True,
                           text=True, check=True)
    assert json.loads(found.stdout.splitlines()[-1]) == []
