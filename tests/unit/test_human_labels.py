"""People's labels: every refusal names its entry or line; files round-trip; the digest."""

from __future__ import annotations

import csv
import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.errors import InputError, SettingTypeError
from llm_qualitative_sort.results.human import (
    HumanLabels,
    HumanScore,
    HumanVerdict,
    check_human,
    human_strengths,
    read_human,
)

IDS = ["x", "y", "z", "w"]
ITEMS = [f"text {i}" for i in IDS]


def _write(path: Path, text: str, *, bom: bool = False) -> Path:
    path.write_bytes(("\ufeff" if bom else "").encode() + text.encode())
    return path


# Python data ----------------------------------------------------------------------------

def test_data_by_index_and_by_id() -> None:
    by_index = check_human({"verdicts": [(0, 1, "A"), {"a": 2, "b": 1, "winner": "tie"}],
                            "scores": [(3, 1.5)]}, ITEMS)
    by_id = check_human({"verdicts": [("x", "y", "a"), {"a": "z", "b": "y", "winner": "TIE"}],
                         "scores": {"w": 1.5}}, ITEMS, ids=IDS)
    assert by_index == by_id == HumanLabels(
        (HumanVerdict(0, 1, "A"), HumanVerdict(2, 1, "tie")), (HumanScore(3, 1.5),))


@pytest.mark.parametrize(("labels", "ids", "words"), [
    ({"verdicts": [("x", "v", "A")]}, IDS, ["verdict 1", "unknown item id 'v'"]),
    ({"verdicts": [(0, 1, "A"), (0, 4, "A")]}, None, ["verdict 2", "4", "out of range 0..3"]),
    ({"verdicts": [(0, -1, "A")]}, None, ["verdict 1", "-1", "out of range"]),
    ({"verdicts": [("y", "y", "A")]}, IDS, ["verdict 1", "against itself", "'y'"]),
    ({"verdicts": [(0, 1, "C")]}, None, ["verdict 1", "winner 'C'", "'A', 'B' or 'tie'"]),
    ({"verdicts": [(0, 1, "draw")]}, None, ["winner 'draw'"]),
    ({"verdicts": [(0, 1, None)]}, None, ["winner None"]),
    ({"verdicts": [(0, 1)]}, None, ["verdict 1", "expected (a, b, winner)"]),
    ({"verdicts": [{"a": 0, "b": 1}]}, None, ["verdict 1", "keys a, b and winner"]),
    ({"scores": {0: math.nan}}, None, ["score 1", "nan", "not a finite number"]),
    ({"scores": [(1, math.inf)]}, None, ["score 1", "inf", "not a finite number"]),
    ({"scores": {"q": 1.0}}, IDS, ["score 1", "unknown item id 'q'"]),
    ({"scores": [("z", 1.0), ("z", 1.0)]}, IDS, ["the item of id 'z' has two scores"]),
    ({"scores": {1: 10**400}}, None, ["score 1", "not a finite number"]),
    ({"scores": [(0, 1.0), (0, 2.0)]}, None, ["item 0 has two scores", "1.0", "2.0"]),
    ({"scores": [(0, 1.0, 2.0)]}, None, ["score 1", "(item, score) pair"]),
    ({}, None, ["no verdict and no score"]),
    ({"verdicts": [], "scores": {}}, None, ["no verdict and no score"]),
    ({"verdict": [(0, 1, "A")]}, None, ["unknown key(s) verdict"]),
])
def test_data_refusals_name_the_entry(labels: dict[str, object], ids: list[str] | None,
                                      words: list[str]) -> None:
    with pytest.raises(InputError) as refused:
        check_human(labels, ITEMS, ids=ids)
    for word in words:
        assert word in str(refused.value)


@pytest.mark.parametrize(("labels", "words"), [
    ({"verdicts": [(True, 1, "A")]}, ["verdict 1", "True is a bool"]),
    ({"verdicts": [(0, False, "A")]}, ["verdict 1", "False is a bool"]),
    ({"scores": {0: True}}, ["score 1", "True", "not a number"]),
    ({"scores": {True: 2.0}}, ["score 1", "True is a bool"]),
    ({"scores": {0: "3"}}, ["score 1", "'3'", "not a number"]),
    ({"verdicts": [("0", 1, "A")]}, ["verdict 1", "an index (an int)", "'0'"]),
    ({"verdicts": "0,1,A"}, ["verdicts must be a list"]),
])
def test_data_of_the_wrong_type_is_a_setting_type_error(labels: dict[str, object],
                                                        words: list[str]) -> None:
    with pytest.raises(SettingTypeError) as refused:
        check_human(labels, ITEMS)
    for word in words:
        assert word in str(refused.value)


def test_bool_ids_are_refused_even_when_an_id_equals_one() -> None:
    # True == 1 and hash(True) == hash(1): without the bool check, True would find id 1.
    with pytest.raises(SettingTypeError, match="True is a bool"):
        check_human({"scores": {True: 2.0}}, ITEMS, ids=[0, 1, 2, 3])


def test_ids_must_match_the_items() -> None:
    with pytest.raises(InputError, match="3 ids given for 4 items"):
        check_human({"scores": {"x": 1.0}}, ITEMS, ids=IDS[:3])
    with pytest.raises(InputError, match="the id 'x' is given twice"):
        check_human({"scores": {"x": 1.0}}, ITEMS, ids=["x", "x", "z", "w"])


def test_checked_labels_are_checked_again_against_other_items() -> None:
    labels = check_human({"verdicts": [(0, 3, "B")]}, ITEMS)
    assert check_human(labels, ITEMS) == labels
    with pytest.raises(InputError, match="verdict 1: item index 3 is out of range 0..2"):
        check_human(labels, ITEMS[:3])


def test_a_non_mapping_is_refused() -> None:
    with pytest.raises(SettingTypeError, match="got list"):
        check_human([(0, 1, "A")], ITEMS)  # type: ignore[arg-type]


# Files ----------------------------------------------------------------------------------

def test_csv_verdicts_and_scores(tmp_path: Path) -> None:
    verdicts = _write(tmp_path / "v.csv", "winner, A ,b\r\nA,x,y\n\nTie,z,y\n", bom=True)
    assert read_human(verdicts, IDS) == HumanLabels(
        (HumanVerdict(0, 1, "A", line=2), HumanVerdict(2, 1, "tie", line=4)))
    scores = _write(tmp_path / "s.CSV", "id,score\nw, 2.5\nx,-1e3\n")
    assert read_human(scores, IDS) == HumanLabels(
        scores=(HumanScore(3, 2.5, line=2), HumanScore(0, -1000.0, line=3)))


def test_jsonl_mixes_both_kinds(tmp_path: Path) -> None:
    path = _write(tmp_path / "h.jsonl", '{"a": "x", "b": "y", "winner": "B"}\n\n'
                  '{"id": "z", "score": 3}\n{"score": "4.5", "id": "w"}\n', bom=True)
    assert read_human(path, IDS) == HumanLabels(
        (HumanVerdict(0, 1, "B", line=1),),
        (HumanScore(2, 3.0, line=3), HumanScore(3, 4.5, line=4)))


def test_a_json_number_is_read_as_the_id_in_digits(tmp_path: Path) -> None:
    path = _write(tmp_path / "h.jsonl", '{"a": 10, "b": "2", "winner": "A"}\n')
    assert read_human(path, ["2", "10"]).verdicts == (HumanVerdict(1, 0, "A", line=1),)


@pytest.mark.parametrize(("name", "text", "words"), [
    ("h.csv", "a,b,winner\nx,y,A\nx,v,B\n", ["line 3", "unknown item id 'v'"]),
    ("h.csv", "a,b,winner\nx,x,A\n", ["line 2", "against itself"]),
    ("h.csv", "a,b,winner\nx,y,A\n\nx,y,C\n", ["line 4", "winner 'C'"]),
    ("h.csv", "a,b,winner\nx,y\n", ["line 2", "2 fields, the header has 3"]),
    ("h.csv", "a,b,winer\nx,y,A\n", ["line 1", "the header must be", "a,b,winer"]),
    ("h.csv", "a,b,winner,id,score\n", ["line 1", "the header must be"]),
    ("h.csv", "\n\nid,score\nx,nan\n", ["line 4", "not a finite number"]),
    ("h.csv", "id,score\nx,inf\n", ["line 2", "not a finite number"]),
    ("h.csv", "id,score\nx,high\n", ["line 2", "score 'high' is not a number"]),
    ("h.csv", "id,score\nx,1\ny,2\nx,3\n", ["the item of id 'x' has two scores", "line 2: 1.0",
                                           "line 4: 3.0"]),
    ("h.csv", "a,b,winner\n", ["no verdict and no score"]),
    ("h.csv", "", ["no verdict and no score"]),
    ("h.csv", 'a,b,winner\n"x,y,A\n', ["line 2", "not valid CSV"]),
    ("h.jsonl", '{"a": "x", "b": "y", "winner": "A"}\n{"a": "x"\n', ["line 2",
                                                                     "not valid JSON"]),
    ("h.jsonl", '["x", "y", "A"]\n', ["line 1", "expected an object"]),
    ("h.jsonl", '{"a": "x", "b": "y", "winner": "A", "who": "ann"}\n', ["line 1",
                                                                        "expected an object"]),
    ("h.jsonl", '{"id": "x", "score": true}\n', ["line 1", "score True is not a number"]),
    ("h.jsonl", '{"id": "x", "score": NaN}\n', ["line 1", "not a finite number"]),
    ("h.jsonl", '{"a": true, "b": "y", "winner": "A"}\n', ["line 1", "True is a bool"]),
    ("h.jsonl", '{"a": "x", "b": "y", "winner": 1}\n', ["line 1", "winner 1"]),
    ("h.jsonl", "\n  \n", ["no verdict and no score"]),
    ("h.jsonl", '{"id": "x", "score": 1%s}\n' % ("0" * 400), ["line 1", "not a finite"]),
    ("h.txt", "a,b,winner\nx,y,A\n", ["must end in .csv, .jsonl, .ndjson"]),
])
def test_file_refusals_name_the_file_and_line(tmp_path: Path, name: str, text: str,
                                              words: list[str]) -> None:
    path = _write(tmp_path / name, text)
    with pytest.raises(InputError) as refused:
        read_human(path, IDS)
    message = str(refused.value)
    assert f"human labels file {str(path)!r}" in message
    for word in words:
        assert word in message


def test_jsonl_lines_are_counted_as_an_editor_counts_them(tmp_path: Path) -> None:
    # U+2028 is a line break to str.splitlines but may stand raw inside a JSON string.
    path = _write(tmp_path / "h.jsonl",
                  '{"id": "x", "score": 1}\n{"id": "a\u2028b", "score": 2}\n{"id": "y"}\n')
    with pytest.raises(InputError, match=r"h\.jsonl', line 3: expected an object"):
        read_human(path, ["x", "a\u2028b"])


def test_a_file_not_utf8_or_missing_is_named(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_bytes(b"a,b,winner\nx,y,A\nx,\xe9,B\n")
    with pytest.raises(InputError, match=r"h\.csv', line 3: not UTF-8 \(byte 0xe9\)"):
        read_human(path, IDS)
    with pytest.raises(InputError, match=r"gone\.csv' cannot be read"):
        read_human(tmp_path / "gone.csv", IDS)


# Digest ---------------------------------------------------------------------------------

def test_digest_ignores_order_orientation_and_lines() -> None:
    one = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "tie"),
                       HumanVerdict(0, 1, "A")), (HumanScore(3, 0.0), HumanScore(1, 2.0)))
    same = HumanLabels((HumanVerdict(2, 1, "tie", 9), HumanVerdict(1, 0, "B", 3),
                        HumanVerdict(0, 1, "A", 4)), (HumanScore(1, 2.0, 1), HumanScore(3, -0.0)))
    assert one.digest() == same.digest()
    assert len(one.digest()) == 64


@pytest.mark.parametrize("other", [
    HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "tie")),
                (HumanScore(3, 0.0), HumanScore(1, 2.0))),  # one repeat fewer
    HumanLabels((HumanVerdict(0, 1, "B"), HumanVerdict(1, 2, "tie"), HumanVerdict(0, 1, "A")),
                (HumanScore(3, 0.0), HumanScore(1, 2.0))),  # a winner changed
    HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "tie"), HumanVerdict(0, 1, "A")),
                (HumanScore(3, 0.0), HumanScore(1, 2.5))),  # a score changed
    HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "tie"), HumanVerdict(0, 1, "A")),
                (HumanScore(2, 0.0), HumanScore(1, 2.0))),  # a score moved
])
def test_digest_changes_with_the_labels(other: HumanLabels) -> None:
    one = HumanLabels((HumanVerdict(0, 1, "A"), HumanVerdict(1, 2, "tie"),
                       HumanVerdict(0, 1, "A")), (HumanScore(3, 0.0), HumanScore(1, 2.0)))
    assert other.digest() != one.digest()


# Strengths ------------------------------------------------------------------------------

def test_strengths_from_verdicts_are_bradley_terry_over_the_labelled_items() -> None:
    labels = HumanLabels((HumanVerdict(3, 1, "A"), HumanVerdict(1, 3, "tie"),
                          HumanVerdict(1, 3, "B")), (HumanScore(0, 9.0),))
    out = human_strengths(labels, 5)
    expected = fit_bradley_terry(2, [1, 0, 0], [0, 1, 1], [1.0, 0.5, 0.0], position=False)
    assert np.isnan(out[[0, 2, 4]]).all()  # the score of item 0 is not on this axis
    np.testing.assert_allclose(out[[1, 3]], expected.strengths)
    assert out[3] > 0 > out[1]


def test_strengths_from_scores_only_keep_the_scores() -> None:
    labels = HumanLabels(scores=(HumanScore(0, 2.0), HumanScore(2, -1.0)))
    out = human_strengths(labels, 3)
    assert out[0] == 2.0 and out[2] == -1.0 and np.isnan(out[1])


def test_strengths_refuse_an_item_outside_n() -> None:
    with pytest.raises(InputError, match="item 4, outside 0..2"):
        human_strengths(HumanLabels((HumanVerdict(0, 4, "A"),)), 3)
    with pytest.raises(InputError, match="item -1, outside 0..2"):
        human_strengths(HumanLabels((HumanVerdict(2, -1, "A"),)), 3)


# Property: random valid labels pass and round-trip through either file -------------------

_ID = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
              min_size=1, max_size=6)


@st.composite
def _labels(draw: st.DrawFn) -> tuple[list[str], HumanLabels]:
    ids = draw(st.lists(_ID, min_size=2, max_size=6, unique=True))
    n = len(ids)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    verdicts = draw(st.lists(st.tuples(pair, st.sampled_from(["A", "B", "tie"])), max_size=8))
    scored = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    values = st.floats(allow_nan=False, allow_infinity=False)
    scores = [HumanScore(i, draw(values)) for i in scored]
    labels = HumanLabels(tuple(HumanVerdict(a, b, w) for (a, b), w in verdicts), tuple(scores))
    return ids, labels


def _as_data(ids: list[str], labels: HumanLabels) -> dict[str, object]:
    return {"verdicts": [(ids[v.a], ids[v.b], v.winner) for v in labels.verdicts],
            "scores": [(ids[s.item], s.score) for s in labels.scores]}


def _without_lines(labels: HumanLabels) -> HumanLabels:
    return HumanLabels(tuple(HumanVerdict(v.a, v.b, v.winner) for v in labels.verdicts),
                       tuple(HumanScore(s.item, s.score) for s in labels.scores))


@given(_labels())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
def test_valid_labels_pass_and_round_trip_through_files(
        drawn: tuple[list[str], HumanLabels]) -> None:
    ids, labels = drawn
    if not labels.verdicts and not labels.scores:
        with pytest.raises(InputError, match="no verdict and no score"):
            check_human(_as_data(ids, labels), ids, ids=ids)
        return
    checked = check_human(_as_data(ids, labels), ids, ids=ids)
    assert checked == labels
    assert checked.digest() == labels.digest()
    with tempfile.TemporaryDirectory() as folder:
        jsonl = Path(folder) / "h.jsonl"
        rows = [{"a": ids[v.a], "b": ids[v.b], "winner": v.winner} for v in labels.verdicts]
        rows += [{"id": ids[s.item], "score": s.score} for s in labels.scores]
        jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        assert _without_lines(read_human(jsonl, ids)) == labels
        for kind, header, cells in (
                ("v", ["a", "b", "winner"],
                 [[ids[v.a], ids[v.b], v.winner] for v in labels.verdicts]),
                ("s", ["id", "score"], [[ids[s.item], repr(s.score)] for s in labels.scores])):
            if not cells:
                continue
            path = Path(folder) / f"{kind}.csv"
            with path.open("w", encoding="utf-8", newline="") as out:
                csv.writer(out).writerows([header, *cells])
            read = _without_lines(read_human(path, ids))
            assert read.digest() == HumanLabels(
                labels.verdicts if kind == "v" else (),
                labels.scores if kind == "s" else ()).digest()
            assert read.verdicts == (labels.verdicts if kind == "v" else ())
            assert read.scores == (labels.scores if kind == "s" else ())
