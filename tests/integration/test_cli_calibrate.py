"""`llm-qualitative-sort calibrate`: judges and prompts tried on labelled pairs, from the shell."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from _suite import cli as _call
from _suite import items_file
from llm_qualitative_sort.cli import EXIT_OK, EXIT_USAGE

ITEMS = [str(n) for n in range(3, 200, 7)]  # 29 numbers; the mock prefers the larger


def _files(tmp_path: Path, count: int = 20) -> tuple[str, str]:
    rng = random.Random(1)
    rows = ["a,b,winner"]
    seen: set[frozenset[int]] = set()
    while len(rows) <= count:
        a, b = rng.sample(range(len(ITEMS)), 2)
        if frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            # Ids are line numbers: item k is on line k + 1.
            rows.append(f"{a + 1},{b + 1},{'A' if int(ITEMS[a]) > int(ITEMS[b]) else 'B'}")
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return items_file(tmp_path, ITEMS), str(labels)


def _labelled(labels: str) -> int:
    rows = Path(labels).read_text("utf-8").splitlines()[1:]
    return len({item for row in rows for item in row.split(",")[:2]})


def test_calibrate_prints_a_table_best_first_and_the_recommendation(tmp_path: Path,
                                                                    capsys: Any) -> None:
    items, labels = _files(tmp_path)
    prompt = tmp_path / "short.txt"
    prompt.write_text("---system---\nJudge.\n---user---\n{{ criteria }}\n{{ text_a }}\n"
                      "{{ text_b }}\n", encoding="utf-8")
    code, out, err = _call(capsys, "calibrate", items, "--human", labels, "--judge", "mock",
                           "--judge", "mock:other", "--prompt", "builtin:en", "--prompt",
                           str(prompt), "--criteria", "larger",
                           "--checkpoint", str(tmp_path / "runs.db"))
    assert code == EXIT_OK, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{_labelled(labels)} labelled texts, 20 labelled pairs "
                               "(20 verdicts")
    header = next(k for k, line in enumerate(lines) if line.startswith("judge"))
    rows = lines[header + 1:header + 5]
    assert sorted(row.split()[:2] for row in rows) == sorted(
        [judge, prompt_] for judge in ("mock", "mock:other")
        for prompt_ in ("builtin:en", str(prompt)))
    assert any(line.startswith("recommended: ") for line in lines)
    assert any(line.startswith("rule: the highest Cohen's κ") for line in lines)


def test_calibrate_writes_json_and_html_and_asks_no_judge_twice(tmp_path: Path,
                                                                capsys: Any) -> None:
    items, labels = _files(tmp_path)
    db = str(tmp_path / "runs.db")
    args = ["calibrate", items, "--human", labels, "--judge", "mock", "--criteria", "larger",
            "--checkpoint", db]
    code, _, err = _call(capsys, *args, "--output", str(tmp_path / "choice.json"))
    assert code == EXIT_OK, err
    data = json.loads((tmp_path / "choice.json").read_text("utf-8"))
    assert data["recommended"] == {"judge": "mock", "prompt": "default"}
    assert data["trials"][0]["paid_calls"] == 40
    # The run is an ordinary stored run: its report is written like a sort's.
    code, _, err = _call(capsys, "report", data["trials"][0]["run_id"], "--checkpoint", db,
                         "--out", str(tmp_path / "run.json"))
    assert code == EXIT_OK, err
    report = json.loads((tmp_path / "run.json").read_text("utf-8"))
    assert report["settings"]["strategy"] == "labelled"
    code, _, err = _call(capsys, *args, "--judge", "mock:second", "--format", "html",
                         "--lang", "ja", "--output", str(tmp_path / "choice.html"))
    assert code == EXIT_OK, err
    page = (tmp_path / "choice.html").read_text("utf-8")
    assert "審査モデルとプロンプトの選択" in page and "mock:second" in page
    code, out, _ = _call(capsys, "runs", "list", "--checkpoint", db)
    # The first judge's run was found stored: two runs in all, one per judge.
    assert out.count("calibrate-") == 2 and out.count("labelled pairs=20") == 2


def test_calibrate_scores_texts_alone_with_the_pointwise_strategy(tmp_path: Path,
                                                                  capsys: Any) -> None:
    items, labels = _files(tmp_path)
    code, out, err = _call(capsys, "calibrate", items, "--human", labels, "--judge", "mock",
                           "--criteria", "larger", "--strategy", "pointwise", "--scale",
                           "1-4", "--format", "json", "--checkpoint", str(tmp_path / "r.db"))
    assert code == EXIT_OK, err
    data = json.loads(out)
    assert data["strategy"] == "pointwise" and data["trials"][0]["calls"] == _labelled(labels)
    assert data["trials"][0]["first_shown"] is None


def test_calibrate_refuses_bad_labels_judges_and_options_before_any_call(
        tmp_path: Path, capsys: Any) -> None:
    items, labels = _files(tmp_path)
    db = tmp_path / "r.db"
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,winner\n1,2,A\n3,99,B\n", encoding="utf-8")
    cases = [
        (["--human", str(bad), "--judge", "mock"], "bad.csv', line 3: unknown item id '99'"),
        (["--human", labels, "--judge", "nobody"], "judge 'nobody': expected PROVIDER"),
        (["--human", labels, "--judge", "mock", "--judge", "mock"],
         "--judge mock is given twice"),
        (["--human", labels, "--judge", "mock", "--scale", "0-5"],
         "--scale is for --strategy pointwise"),
        (["--human", labels, "--judge", "mock", "--prompt", str(tmp_path / "none.txt")],
         "none.txt: cannot read it"),
    ]
    for extra, message in cases:
        code, out, err = _call(capsys, "calibrate", items, "--criteria", "larger",
                               "--checkpoint", str(db), *extra)
        assert code == EXIT_USAGE and message in err and not out, (extra, err)
    assert not db.exists()
