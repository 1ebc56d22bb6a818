"""A run as the command line describes it, and the command that resumes it."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

PROGRAM = "llm-qualitative-sort"


@dataclass
class RunConfig:
    """Everything that shapes a run, whichever subcommand described it."""

    criteria: str
    run_id: str
    provider: str = "mock"
    model: str | None = None
    base_url: str | None = None
    elimination_count: int = 2
    comparison_rounds: int = 2
    concurrency: int = 10
    seed: int = 0
    cache_dir: str | None = None
    checkpoint: str | None = None
    out: str | None = None
    resume: bool = False
    mock_latency: float = 0.0
    progress: str = "auto"
    verbose: bool = False
    batch: bool = False
    detach: bool = False
    batch_discount: float = 0.5
    batch_poll: float = 10.0

    def settings(self) -> dict[str, object]:
        """What reports record about the run."""
        return {
            "criteria": self.criteria,
            "provider": self.provider,
            "model": self.model,
            "elimination_count": self.elimination_count,
            "comparison_rounds": self.comparison_rounds,
            "seed": self.seed,
        }

    def resume_command(self) -> str:
        """The exact shell command that continues this run."""
        words = [PROGRAM, "sort", "--resume", self.run_id, "--criteria", self.criteria,
                 "--provider", self.provider]
        options: list[tuple[str, object]] = [
            ("--model", self.model),
            ("--base-url", self.base_url),
            ("--elimination-count", self.elimination_count),
            ("--comparison-rounds", self.comparison_rounds),
            ("--concurrency", self.concurrency),
            ("--seed", self.seed),
            ("--cache-dir", _absolute(self.cache_dir)),
            ("--checkpoint", _absolute(self.checkpoint)),
            ("--out", _absolute(self.out)),
            ("--mock-latency", self.mock_latency or None),
            *self._batch_options(),
        ]
        for flag, value in options:
            if value is not None:
                words += [flag, str(value)]
        words += ["--batch"] * self.batch + ["--detach"] * self.detach
        return shlex.join(words)

    def _batch_options(self) -> list[tuple[str, object]]:
        if not self.batch:
            return []
        return [("--batch-discount", self.batch_discount), ("--batch-poll", self.batch_poll)]


def _absolute(path: str | None) -> str | None:
    # Absolute, so the command works from whatever directory it is pasted into.
    return None if path is None else str(Path(path).resolve())
