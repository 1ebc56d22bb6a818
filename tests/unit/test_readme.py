"""The README stays a short front door whose links and commands work."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . "
        "&& llm-qualitative-sort demo")
TESTS = 'pip install -e ".[dev]" && python -m pytest'


def test_the_readme_fits_on_a_few_screens() -> None:
    assert len(README.splitlines()) <= 300


def test_every_relative_link_of_the_readme_names_a_file_of_the_repository() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert local, "the README links to the documentation"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_the_readme_keeps_the_two_first_commands_and_ci_runs_the_same_tests() -> None:
    assert DEMO in README
    assert TESTS in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[dev]"' in ci and "\npython -m pytest\n" in ci
