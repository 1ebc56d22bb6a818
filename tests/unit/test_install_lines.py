"""No install line fetches PyPI's other `llm-qualitative-sort` instead of this project.

That name on the registry belongs to another project (which also imports as
`llm_qualitative_sort`), so every instruction installs from this repository: `pip install
-e ".[extra]"`, a path, or a direct URL reference.
"""

import re
from pathlib import Path

from llm_qualitative_sort.errors import install_hint

ROOT = Path(__file__).resolve().parents[2]
# `pip install llm-qualitative-sort`, `pip install "llm-qualitative-sort[openai]"`, ...:
# the bare name, which pip looks up on the registry. A direct reference (`NAME[extras] @
# URL`) never looks the name up; a pinned `==` of the other project's version (the speed
# benchmark installs it on purpose, in its own virtualenv) is not advice about this one.
BY_NAME = re.compile(
    r"""pip install\s+(?:-U\s+|--upgrade\s+)?["']?llm-qualitative-sort"""
    r"""(?!==)(?![\w-])(?!(?:\[[^\]]*\])?\s*@)"""
)


def _texts() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "src").rglob("*.py"))
    return [f for f in files if f.exists()]


def test_no_instruction_installs_this_project_by_its_registry_name() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _texts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BY_NAME.search(line)
    ]
    assert not found, "install from this repository, not by name:\n" + "\n".join(found)


def test_the_pattern_catches_the_forms_that_fetch_the_other_project() -> None:
    assert BY_NAME.search('pip install "llm-qualitative-sort[postgres]"')
    assert BY_NAME.search("pip install llm-qualitative-sort")
    assert not BY_NAME.search('pip install -e ".[postgres]"')
    assert not BY_NAME.search("pip install llm-qualitative-sort==1.1.0")
    assert not BY_NAME.search('pip install "llm-qualitative-sort[openai] @ file:///src/lqs"')
    assert not BY_NAME.search('pip install "/path/to/llm-qualitative-sort[openai]"')


def test_the_hint_for_a_missing_extra_installs_from_the_project_folder() -> None:
    hint = install_hint("openai")
    assert hint.startswith('pip install -e ".[openai]"')
    assert not BY_NAME.search(hint)


def test_every_extra_an_install_line_names_exists() -> None:
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"])
    named = re.compile(r"""pip install\s+(?:-\w+\s+)*-e\s+["']?\.\[([^\]]+)\]""")
    files = [*_texts(), *sorted((ROOT / "tests").rglob("*.py")),
             *sorted((ROOT / "scripts").rglob("*.py")), ROOT / ".ci" / "run"]
    unknown = [
        f"{path.relative_to(ROOT)}:{number}: {extra}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for found in named.findall(line)
        for extra in (e.strip() for e in found.split(","))
        if extra not in extras and "{" not in extra  # a template's {extra} is filled in
    ]
    assert not unknown, f"extras that pyproject.toml does not define ({sorted(extras)}):\n" + \
        "\n".join(unknown)
