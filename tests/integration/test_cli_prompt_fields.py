"""`sort FILE.jsonl|csv --prompt FILE`: a record's other keys are fields the template shows."""

from __future__ import annotations

import asyncio
import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from llm_qualitative_sort import PermanentProviderError
from llm_qualitative_sort.cli import EXIT_OK, EXIT_STOPPED, EXIT_USAGE, main
from llm_qualitative_sort.models import ComparisonResult
from llm_qualitative_sort.prompts._comparison import build_messages
from llm_qualitative_sort.testing import MockLLMProvider

TEXTS = [str(v) for v in range(0, 120, 7)]
TEMPLATE = ("---system---\nJudge answers to their questions.\n---user---\n{{ text_a }}\n"
            "It answers: {{ fields_a.question }}\n{{ text_b }}\n"
            "It answers: {{ fields_b.question }}\n")


def _records(**change: dict[str, Any]) -> list[dict[str, Any]]:
    records = [{"id": f"r{v}", "answer": v, "question": f"{v}? {{{{ 6 * 7 }}}}", "lang": "en"}
               for v in TEXTS]
    for text, values in change.items():
        records[TEXTS.index(text)].update(values)
    return records


def _files(tmp_path: Path, records: list[dict[str, Any]], template: str = TEMPLATE) -> None:
    lines = [json.dumps(r) for r in records]
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "judge.prompt").write_text(template, encoding="utf-8")


def _sort(tmp_path: Path, *args: str, items: str = "items.jsonl") -> int:
    return main(["sort", str(tmp_path / items), "--criteria", "larger", "--seed", "1",
                 "--progress", "none", "--checkpoint", str(tmp_path / "runs.db"), *args])


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The user message of every call the mock answers, as a real client would send it."""
    users: list[str] = []
    original = MockLLMProvider.compare_call

    async def recording(self: MockLLMProvider, item_a: str, item_b: str, criteria: str,
                        **kwargs: Any) -> ComparisonResult:
        users.append(build_messages(item_a, item_b, criteria)[1].text)
        return await original(self, item_a, item_b, criteria, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", recording)
    return users


def _check_shown(users: list[str]) -> None:
    assert users
    for user in users:
        found = re.findall(r"<<<BEGIN (?:TEXT|FIELD) [AB.a-z]+ \w+>>>\n(.*?)\n<<<END", user)
        text_a, question_a, text_b, question_b = found
        # Each text with its own record's question, its template syntax shown as text.
        assert (question_a, question_b) == (f"{text_a}? {{{{ 6 * 7 }}}}",
                                            f"{text_b}? {{{{ 6 * 7 }}}}")


def test_a_jsonl_records_other_keys_reach_the_template(
    tmp_path: Path, asked: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, _records())
    assert _sort(tmp_path, "--field", "answer", "--id-field", "id",
                 "--prompt", str(tmp_path / "judge.prompt")) == EXIT_OK
    _check_shown(asked)
    assert capsys.readouterr().out.splitlines()[0].split() == ["1", "[r119]", "119"]


def test_a_csv_rows_other_columns_reach_the_template(tmp_path: Path, asked: list[str]) -> None:
    _files(tmp_path, [])
    with (tmp_path / "items.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, ["answer", "question"])
        writer.writeheader()
        writer.writerows({"answer": r["answer"], "question": r["question"]} for r in _records())
    assert _sort(tmp_path, "--column", "answer", "--prompt", str(tmp_path / "judge.prompt"),
                 items="items.csv") == EXIT_OK
    _check_shown(asked)


@pytest.mark.parametrize(("records", "items", "message"), [
    (_records(**{"14": {"question": None}}), "items.jsonl",
     r"judge.prompt', user part, line 5: shows \{\{ fields_a.question \}\} but item "
     r".*items.jsonl:3 has no field 'question' \(its fields: id, lang, question\)"),
    ([{"answer": t} for t in TEXTS], "items.jsonl", r"line 5: .*the items carry no fields"),
    (_records(), "items.txt", r"judge.prompt', user part, line 5: .*carry no fields"),
])
def test_items_lacking_a_field_stop_before_any_call(
    tmp_path: Path, asked: list[str], capsys: pytest.CaptureFixture[str],
    records: list[dict[str, Any]], items: str, message: str,
) -> None:
    _files(tmp_path, records)
    (tmp_path / "items.txt").write_text("\n".join(TEXTS), encoding="utf-8")
    field = ["--field", "answer"] if items.endswith(".jsonl") else []
    assert _sort(tmp_path, *field, "--prompt", str(tmp_path / "judge.prompt"),
                 "--dry-run", items=items) == EXIT_USAGE
    assert re.search(message, capsys.readouterr().err)
    assert asked == []


def test_records_other_keys_play_no_part_without_a_template_showing_them(
    tmp_path: Path, asked: list[str]
) -> None:
    _files(tmp_path, _records())
    assert _sort(tmp_path, "--field", "answer", "--run-id", "plain") == EXIT_OK
    assert asked and all("FIELD" not in user for user in asked)
    from llm_qualitative_sort.cli._inventory import RunInventory

    async def stored() -> dict[str, Any]:
        async with RunInventory.open(tmp_path / "runs.db") as runs:
            return dict(await runs.values("plain"))

    assert not asyncio.run(stored()).get("fields")


def test_a_run_started_again_with_other_fields_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, _records())
    original = MockLLMProvider.compare_call

    async def breaking(self: MockLLMProvider, *args: Any, **kwargs: Any) -> ComparisonResult:
        if self.calls >= 20:
            raise PermanentProviderError("killed")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(MockLLMProvider, "compare_call", breaking)
    prompt = ["--field", "answer", "--prompt", str(tmp_path / "judge.prompt"), "--run-id", "cut"]
    assert _sort(tmp_path, *prompt) == EXIT_STOPPED
    monkeypatch.setattr(MockLLMProvider, "compare_call", original)
    _files(tmp_path, _records(**{"21": {"question": "another question"}}))
    capsys.readouterr()
    assert _sort(tmp_path, *prompt) != EXIT_OK
    assert "started with other item fields: item '21'" in capsys.readouterr().err
    # The stored run keeps its own fields: `--resume` reads no input and goes on with them.
    assert main(["sort", "--resume", "cut", "--progress", "none",
                 "--checkpoint", str(tmp_path / "runs.db")]) == EXIT_OK
