"""A run stored with a lost call (an earlier version's stray CancelledError) can still finish."""

from typing import Any

from llm_qualitative_sort.results.from_state import counts, history_matches
from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence

# Match 0 lost its second call: stored as None in the place of the call.
DAMAGED: list[Any] = [{"round": 1, "bye": None, "matches": [
    [0, 1, None, [["AB", "A", "", False, 10, 2], None]],
    [2, 3, "B", [["AB", "B", "", False, 10, 2], ["BA", "B", "", False, 10, 2]]],
]}]


def test_a_lost_call_counts_as_a_failed_call() -> None:
    totals = counts(DAMAGED)
    assert totals["total_api_calls"] == 4
    assert totals["failed_calls"] == 1
    assert totals["input_tokens"] == 30


def test_a_lost_call_reads_back_as_a_call_without_verdict() -> None:
    matches = history_matches(["a", "b", "c", "d"], DAMAGED)
    lost = matches[0].rounds[1]
    assert (lost.order, lost.winner, lost.input_tokens) == ("BA", None, 0)
    assert "lost" in lost.reasoning


def test_swiss_evidence_reads_a_lost_call_as_a_meeting_without_verdict() -> None:
    evidence = gather_evidence(DAMAGED, 4)
    assert evidence.calls == 4
    assert evidence.meetings[0, 1] == 2
