"""`sort --prompt`: a template, context or scale that cannot work stops with a usage error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort.cli import EXIT_USAGE, main
from llm_qualitative_sort.testing import MockLLMProvider

PAIRWISE = "---system---\n{system}\n---user---\n{{{{ text_a }}}}\n{{{{ text_b }}}}\n"
POINTWISE = "---system---\nRate.\n---user---\n{% if high == 4 %}{{ text }}{% endif %}\n"


@pytest.mark.parametrize(("template", "context", "args", "message"), [
    (PAIRWISE.format(system="{% for i in range(100000) %}{% for j in range(100000) %}"
                            "{% endfor %}{% endfor %}"), "{}", [],
     r"judge.prompt', system part, line 2: the template takes more than 100,000 steps"),
    (PAIRWISE.format(system="{{ 'x' * 10**9 }}"), "{}", [], "repeating a value of length 1"),
    (PAIRWISE.format(system="{{ 1/0 }}"), "{}", [],
     "judge.prompt', system part, line 2: ZeroDivisionError: division by zero"),
    (PAIRWISE.format(system="{% include 'x' %}"), "{}", [], r"\{% include %\} is not available"),
    (PAIRWISE.format(system="{{ context.r }}"), '{"r": NaN}', [],
     r"context\['r'\] is nan: context numbers must be finite"),
    (PAIRWISE.format(system="{{ context.r }}"), "[" * 5000 + "]" * 5000, [],
     "ctx.json: nested too deep to read"),
    (PAIRWISE.format(system="{{ context.r }}"), '{"r": ' + "[" * 900 + "]" * 900 + "}", [],
     r"context\['r'\]\[0\].* nests more than 32 levels"),
    (POINTWISE, "{}", ["--strategy", "pointwise", "--scale", "0-5"],
     r"judge.prompt' never shows \{\{ text \}\} as it is"),
    (PAIRWISE.format(system="ok"), "{}", ["--strategy", "pointwise", "--scale", "1-99999999999"],
     "scale labels must be single digits 0-9"),
    (PAIRWISE.format(system="ok"), "{}", ["--strategy", "pointwise", "--scale", "²-4"],
     "scale must be 'LOW-HIGH'"),
])
def test_a_template_context_or_scale_that_cannot_work_stops_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    template: str, context: str, args: list[str], message: str,
) -> None:
    (tmp_path / "items.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (tmp_path / "judge.prompt").write_text(template, encoding="utf-8")
    (tmp_path / "ctx.json").write_text(context, encoding="utf-8")
    calls: list[object] = []

    async def counted(self: MockLLMProvider, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("no call may be made")

    monkeypatch.setattr(MockLLMProvider, "compare_call", counted)
    monkeypatch.setattr(MockLLMProvider, "score_call", counted)
    code = main(["sort", str(tmp_path / "items.txt"), "--criteria", "c", "--progress", "none",
                 "--checkpoint", str(tmp_path / "runs.db"),
                 "--prompt", str(tmp_path / "judge.prompt"),
                 "--context", str(tmp_path / "ctx.json"), *args])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    assert re.search(message, err) and "Traceback" not in err
    assert calls == []
