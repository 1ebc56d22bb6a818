"""A stored call is read and written through one record, in every version's stored form."""

from typing import Any

import pytest

from llm_qualitative_sort.tournament.records import (
    LOST_REASON,
    CallRecord,
    call_results,
    call_verdicts,
    read_calls,
    round_result,
)

FORMS: list[list[Any]] = [
    ["AB", "A", "why", False, 10, 2],
    ["BA", "tie", "why", True, 10, 2, {"judge": "openai:x"}],
    ["AB", "B", "", False, 3, 1, {"batch": True, "probability": 0.25}],
    ["AB", "A", "", False, 3, 1, {"pointwise": {"label": 3, "distribution": [[3, 1.0]]}}],
    ["BA", "B", "", False, 3, 1, "batch"],  # stored before the facts dict
]


@pytest.mark.parametrize("stored", FORMS)
def test_every_stored_form_reads_and_writes_back_unchanged(stored: list[Any]) -> None:
    assert CallRecord.read(stored).stored() == stored


def test_a_call_without_facts_is_stored_in_six_fields() -> None:
    record = CallRecord("AB", None, "no answer", False, 0, 0)
    assert record.stored() == ["AB", None, "no answer", False, 0, 0]
    assert (record.judge, record.batch, record.probability, record.label) == (
        None, False, None, None)


def test_facts_are_read_by_name() -> None:
    panel, batch, scored, marked = (CallRecord.read(form) for form in FORMS[1:])
    assert (panel.judge, panel.cached, panel.winner) == ("openai:x", True, "tie")
    assert (batch.batch, batch.probability) == (True, 0.25)
    assert scored.label == {"label": 3, "distribution": [[3, 1.0]]}
    assert marked.batch and marked.facts == {}


def test_a_lost_call_reads_as_a_failed_call_in_its_order() -> None:
    calls = read_calls([FORMS[0], None, None])
    assert [(c.order, c.winner, c.reasoning) for c in calls[1:]] == [
        ("BA", None, LOST_REASON), ("AB", None, LOST_REASON)]
    assert calls[0] == CallRecord.read(FORMS[0])


def test_a_call_cut_short_after_its_winner_reads_with_nothing_else() -> None:
    assert CallRecord.read(["BA", "tie"]) == CallRecord("BA", "tie", "", False, 0, 0)


@pytest.mark.parametrize("stored", [*FORMS, None])
def test_the_quick_readers_read_as_the_record_does(stored: list[Any] | None) -> None:
    calls = [FORMS[0], stored]
    records = read_calls(calls)
    assert call_verdicts(calls) == [(c.order, c.winner, c.probability) for c in records]
    assert call_results(calls) == [round_result(c) for c in records]
    assert call_results([FORMS[2]])[0].probability == 0.25 and call_results([FORMS[4]])[0].batch
