"""A provider batch id that echoes the API key is kept and shown masked, and still works."""

from __future__ import annotations

import json

import pytest
from _batch_setup import batch_server
from _setup import KEY, hidden_scores, make_items
from test_batch_cli import VARIABLE, resume_command, sort_args

from llm_qualitative_sort.cli import EXIT_DETACHED, EXIT_OK, main

ITEMS = make_items(8)


def echo_key_in_batch_ids(fake) -> None:
    """Make the fake server name every batch with the caller's key in it."""
    add = fake.add
    fake.add = lambda tag, requests, prefix: add(tag, requests, f"{prefix}{KEY}-")


@pytest.mark.parametrize("kind", ["openai", "google"])
def test_a_batch_id_holding_the_key_is_masked_in_files_and_messages(
    kind, tmp_path, capsys, monkeypatch
) -> None:
    items_file = tmp_path / "items.jsonl"
    items_file.write_text("".join(json.dumps({"text": t}) + "\n" for t in ITEMS), "utf-8")
    monkeypatch.setenv(VARIABLE[kind], KEY)
    with batch_server(kind, hidden_scores(ITEMS)) as (fake, url):
        echo_key_in_batch_ids(fake)
        code = main(sort_args(kind, url, tmp_path, items_file, "--detach", "--run-id", "k",
                              "--progress", "lines"))
        out, err = capsys.readouterr()
        assert code == EXIT_DETACHED, err
        assert all(KEY in batch_id for batch_id in fake.batches)  # the server did echo it
        assert "detached: round 1 is waiting on batch" in err and "***" in err
        command = resume_command(err)
        logs = [err]
        for _ in range(100):  # a masked id is found again by its tag, at every resume
            code = main([*command, "--progress", "lines"])
            logs.append(capsys.readouterr().err)
            if code != EXIT_DETACHED:
                break
        rounds = fake.rounds()
    assert code == EXIT_OK, logs[-1]
    assert rounds == list(range(1, len(rounds) + 1))
    assert len(fake.batches) == len(rounds)  # nothing submitted twice
    for log in logs:
        assert KEY not in log
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != items_file]
    assert {p.name for p in written} >= {"runs.sqlite3", "runs.journal.sqlite3"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
