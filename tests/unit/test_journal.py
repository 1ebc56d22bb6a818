from pathlib import Path

from llm_qualitative_sort._journal import CallPlace, Journal, text_digest
from llm_qualitative_sort.models import ComparisonResult


def _place(first: str, second: str) -> CallPlace:
    return CallPlace("run", 1, 0, 0, first, second, text_digest(first) + text_digest(second))


async def test_rows_survive_reopening_and_other_texts_are_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    answer = ComparisonResult(winner="B", reasoning="r", raw_response={"x": [1]}, input_tokens=3)
    journal.put(_place("a", "b"), answer, cached=True)
    journal.close()  # flushes
    reopened = Journal(path)
    assert reopened.get(_place("a", "b")) == (answer, True)
    assert reopened.get(_place("b", "a")) is None
    reopened.forget("run")
    assert Journal(path).get(_place("a", "b")) is None
