"""The corpora replay study's scripts: how each corpus becomes votes, and what each design does."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from llm_qualitative_sort.testing import ReplayTopic

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
REQUIRE_VARIABLE = "LLM_QUALITATIVE_SORT_REQUIRE_SHARED_DATA"


def _load(name: str) -> ModuleType:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # the study imports the builder as the scripts do
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build() -> ModuleType:
    return _load("corpora_build")


@pytest.fixture(scope="module")
def study() -> ModuleType:
    return _load("corpora_study")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_votes_are_stored_in_id_order_with_the_winner_turned_to_match(build: ModuleType
                                                                      ) -> None:
    assert build.tally([("b", "a", "x"), ("a", "b", "="), ("a", "b", "x")]) == {("a", "b"): "2=1"}
    assert build.coverage({("a", "b"): "1", ("a", "c"): "2"}) == pytest.approx(2 / 3)


def test_mqm_scores_become_one_vote_per_pair_fewer_error_points_winning(build: ModuleType
                                                                        ) -> None:
    assert build.mqm_votes({"x": -5.0, "y": -0.1, "z": -5.0}) == {
        ("x", "y"): "2", ("x", "z"): "=", ("y", "z"): "1"}


def test_cj_keeps_only_sessions_with_95_percent_of_pairs_judged_and_5_items(
        build: ModuleType, tmp_path: Path) -> None:
    items = [str(i) for i in range(6)]
    full = [f"j,{a},{b}" for a, b in itertools.combinations(items, 2)]
    header = "judge,candidate_chosen,candidate_not_chosen\n"
    repo = _write(tmp_path, {
        "data/Full.csv": header + "\n".join(full) + "\n",
        "data/Gappy.csv": header + "\n".join(full[1:]) + "\n",  # 14 of 15 pairs: 93 %
        "data/Tiny.csv": header + "j,1,2\nj,2,3\nj,1,3\n",
        "data/00-summary.csv": "not,a,session\n"})
    topics = build.cj_topics(repo)
    assert [t["topic"] for t in topics] == ["cj-Full"]
    assert len(topics[0]["pairs"]) == 15
    assert ["0", "1", "1"] in topics[0]["pairs"]  # "0" chosen over "1": the first id won


def test_mqm_merges_identical_translations_and_drops_segments_without_an_order(
        build: ModuleType, tmp_path: Path) -> None:
    scores = ["system\tmqm_avg_score\tseg_id"]
    rows = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"]
    for segment, spread in (("1", True), ("2", False), ("3", True)):
        for k, system in enumerate(["A", "B", "C", "D", "E", "F", "ref"]):
            score = -float(k) if spread else 0.0
            target = "same words" if system in ("A", "B") else f"<v>t{k}</v> of {segment}"
            if segment == "3" and system not in ("A", "B", "C"):
                score_text = "None"
            else:
                score_text = str(score)
            scores.append(f"{'ref-A' if system == 'ref' else system}\t{score_text}\t{segment}")
            rows.append(f"{system}\tdoc\t1\t{segment}\tr1\tsrc\t{target}\tNo-error\tno-error\t")
    repo = _write(tmp_path, {
        "ted/ende/mqm_ted_ende.avg_seg_scores.tsv": "\n".join(scores) + "\n",
        "ted/ende/mqm_ted_ende.tsv": "\n".join(rows) + "\n"})
    topics = build.mqm_topics(repo)
    assert [t["topic"] for t in topics] == ["mqm-001"]  # 2: all equal; 3: too few scored
    args = topics[0]["args"]
    assert "1:B" not in args and args["1:A"] == "same words"  # one text, the first system's
    assert args["1:ref-A"] == "t6 of 1"  # error marks stripped, ref named as scored
    assert ["1:A", "1:C", "1"] in topics[0]["pairs"]


def test_webis_keeps_one_topic_per_query_and_drops_cross_topic_labels(build: ModuleType,
                                                                      tmp_path: Path) -> None:
    arguments = "Topic ID,Argument ID,Discussion ID,Premise\n" + "\n".join(
        f"{1 + i // 3},{i},9,premise {i}" for i in range(6))
    labels = ("Discussion ID A,Argument ID A,Discussion ID B,Argument ID B,Comparison\n"
              "9,0,9,1,A\n9,2,9,1,Tie\n9,0,9,3,B\n9,4,9,5,B\n")
    repo = _write(tmp_path, {
        "Webis-ArgQuality-20-Full/webis-argquality20-arguments.csv": arguments,
        "Webis-ArgQuality-20-Raw/webis-argquality20-raw-rhetorical.csv": labels})
    topics = {t["topic"]: t for t in build.webis_topics(repo, "rhetorical")}
    assert sorted(topics) == ["webis-01", "webis-02"]
    assert topics["webis-01"]["pairs"] == [["9-0", "9-1", "1"], ["9-1", "9-2", "="]]
    assert topics["webis-02"]["args"] == {"9-4": "premise 4", "9-5": "premise 5"}


def _consistent_topic(n: int, judged: float = 1.0) -> ReplayTopic:
    """Item i beats every later item in each stored vote; a share of pairs left unjudged."""
    ids = tuple(f"i{k:02d}" for k in range(n))
    pairs = list(itertools.combinations(ids, 2))
    keep = pairs[: round(judged * len(pairs))] if judged < 1 else pairs
    return ReplayTopic("consistent", ids, tuple(f"text {k} " * 10 for k in range(n)),
                       {pair: "111" for pair in keep})


def test_every_design_finds_a_consistent_order_and_the_baseline_is_reproducible(
        study: ModuleType) -> None:
    topic = _consistent_topic(16)
    stored = study.Stored(topic, None, 300.0)
    figures = study.play(topic, stored, seed=3)
    assert figures == study.play(topic, stored, seed=3)
    for name in ("random pairs + BT", "Swiss, ties (the product)",
                 "A-optimal pairs (simulated)", "ranking calls of 4, q=0, equal calls"):
        assert figures[name]["4n"]["rho"] > 0.9, name
    # Coin flips in a quarter of the answers cost order at the same calls.
    assert (figures["ranking calls of 4, q=0.25, equal calls"]["1n"]["rho"]
            < figures["ranking calls of 4, q=0, equal calls"]["1n"]["rho"])


def test_equal_tokens_buys_fewer_ranking_calls_by_the_texts_they_show(study: ModuleType
                                                                      ) -> None:
    stored = study.Stored(_consistent_topic(8), 100.0, 200.0)
    assert stored.group_calls(80, "equal calls") == 80
    assert stored.group_calls(80, "equal tokens") == round(80 * 400 / 600)


def test_a_pair_no_one_judged_is_a_call_without_a_verdict(study: ModuleType) -> None:
    topic = _consistent_topic(12, judged=0.5)
    stored = study.Stored(topic, None, 300.0)
    rng = np.random.default_rng(0)
    assert stored.answer(10, 11, 0.0, rng) is None and stored.answer(0, 1, 0.0, rng) == 1.0
    _, made, heard = study.swiss(topic, 48, seed=0)
    assert made == 48 and 0 < heard < made
    _, made, heard = study.optimal_pairs(stored, 48, rng)
    assert heard == made  # chooses among judged pairs only


def test_the_study_writes_its_tables_for_a_ukp_topic(study: ModuleType, tmp_path: Path) -> None:
    ukp = Path(__file__).resolve().parents[2].parent / "shared/data/ukpconvarg1"
    ukp = Path(os.environ.get("UKPCONVARG1_DIR", ukp))
    if not ukp.is_dir():
        message = f"UKPConvArg1 JSON not found in {ukp} (set UKPCONVARG1_DIR to its folder)"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(message)
        pytest.skip(message)
    one = tmp_path / "ukp"
    one.mkdir()
    source = ukp / "tv-is-better-than-books_books.json"
    (one / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    study.main(["--ukp", str(one), "--cache", str(tmp_path), "--seeds", "2", "--corpora", "ukp",
                "--out", str(tmp_path)])
    tables = (tmp_path / "corpora_tables.txt").read_text(encoding="utf-8")
    assert tables.count("| **random pairs + BT** |") == 3
    assert tables.count("| *gold order, ties broken at random* |") == 3
    assert (tmp_path / "corpora.svg").exists()
    saved = json.loads((tmp_path / "corpora.json").read_text(encoding="utf-8"))
    assert len(saved["runs"]["ukp"]["Swiss, ties (the product)"]["2n"]) == 2
    assert "UKPConvArg1: 1 topics of 27–27 texts" in tables


def test_strengths_equal_to_the_solver_s_tolerance_tie_in_the_score(study: ModuleType) -> None:
    gold = np.array([1.0, 1.0 + 1e-9, 1.0 - 1e-9, -2.0])
    found = np.array([1.0 - 1e-9, 1.0, 1.0 + 1e-9, -2.0])  # the same order, solver noise apart
    assert study.scored(found, gold) == {"rho": pytest.approx(1.0), "tau": pytest.approx(1.0)}
    assert study.scored(np.zeros(4), gold) == {"rho": 0.0, "tau": 0.0}
