"""`sort --prompt FILE --context FILE.json`: checked before any call, kept with the run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE, main
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(v) for v in range(0, 200, 7)] + ["{{ context.rubric }} {{ 6 * 7 }}"]
TEMPLATE = "---system---\nRubric: {{ context.rubric }}\n---user---\n{{ text_a }}\n{{ text_b }}\n"


def _files(tmp_path: Path, template: str = TEMPLATE) -> None:
    (tmp_path / "items.txt").write_text("\n".join(ITEMS), encoding="utf-8")
    (tmp_path / "judge.prompt").write_text(template, encoding="utf-8")
    (tmp_path / "ctx.json").write_text(json.dumps({"rubric": "size"}), encoding="utf-8")


def _sort(tmp_path: Path, *args: str) -> int:
    return main(["sort", str(tmp_path / "items.txt"), "--criteria", "larger", "--seed", "1",
                 "--progress", "none", "--checkpoint", str(tmp_path / "runs.db"),
                 "--prompt", str(tmp_path / "judge.prompt"),
                 "--context", str(tmp_path / "ctx.json"), *args])


@pytest.mark.parametrize(("template", "context", "message"), [
    (TEMPLATE + "{{ context.rubrik }}\n", '{"rubric": "size"}',
     r"judge.prompt', user part, line 6: context has no key 'rubrik'"),
    ("---system---\n{% if %}\n---user---\n{{ text_a }}{{ text_b }}\n", "{}",
     r"judge.prompt', system part, line 2: "),
    ("---system---\nok\n---user---\n{{ text_a }}\n", "{}", r"never shows \{\{ text_b \}\}"),
    (TEMPLATE, "[1, 2]", r"ctx.json: expected a JSON object"),
    (TEMPLATE, "{oops", r"ctx.json: not valid JSON"),
])
def test_a_bad_template_or_context_stops_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    template: str, context: str, message: str,
) -> None:
    _files(tmp_path, template)
    (tmp_path / "ctx.json").write_text(context, encoding="utf-8")
    calls: list[object] = []

    async def counted(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        calls.append(args)
        raise AssertionError("no call may be made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", counted)
    assert _sort(tmp_path) == EXIT_USAGE
    assert re.search(message, capsys.readouterr().err)
    assert calls == []


def test_a_resume_reads_the_files_again_and_refuses_a_changed_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path)
    original = MockLLMProvider.compare_call

    async def breaking(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        if self.calls >= 20:
            raise PermanentProviderError("killed")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", breaking)
    assert _sort(tmp_path, "--run-id", "cut") == EXIT_STOPPED
    monkeypatch.setattr(MockLLMProvider, "compare_call", original)
    (tmp_path / "judge.prompt").write_text(TEMPLATE.replace("Rubric", "Scale"), "utf-8")
    resume = ["sort", "--resume", "cut", "--progress", "none",
              "--checkpoint", str(tmp_path / "runs.db"), "--out", str(tmp_path / "cut.json")]
    capsys.readouterr()
    assert main(resume) != EXIT_OK
    assert "started with the prompt" in capsys.readouterr().err
    (tmp_path / "judge.prompt").write_text(TEMPLATE, "utf-8")
    assert main(resume) == EXIT_OK
    report = json.loads((tmp_path / "cut.json").read_text("utf-8"))
    assert report["settings"]["prompt"].startswith(f"{tmp_path / 'judge.prompt'} sha256:")
    assert report["settings"]["context"] == str(tmp_path / "ctx.json")
