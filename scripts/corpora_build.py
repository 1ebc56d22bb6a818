"""Build replay topics from three public corpora of pairwise human judgements.

Writes one JSON file per topic, in the format `load_replay_topic` reads
(`{"topic", "source", "args": {id: text}, "pairs": [[id1, id2, "12="], ...]}`), under
`CACHE/<corpus>/`. Nothing is downloaded: each corpus is read from a local copy of its public
GitHub repository (a clone's work tree or a bare git directory), so the raw data never enter
this repository.

- **webis**: Webis-ArgQuality-20 (Gienapp, Stein, Hagen & Potthast, "Efficient Pairwise
  Annotation of Argument Quality", ACL 2020, https://aclanthology.org/2020.acl-main.511;
  https://github.com/webis-de/acl20-efficient-argument-quality-annotation). One topic per
  query; the arguments' premises as texts; one crowd label per judged pair in one quality
  dimension (`--webis-dimension`, default rhetorical), "Tie" as "=". Comparisons across
  topics are left out, and so are arguments no comparison names.
- **cj**: the comparative-judgement sessions collected by Kinnear, Jones & Davies
  ("Comparative judgement as a research tool: a meta-analysis of application and
  reliability", Behavior Research Methods 2025; https://github.com/georgekinnear/cj-meta-analysis),
  only the sessions in which at least 95 % of all pairs of the session's items were judged
  and that have at least 5 items.
  The artefacts themselves (scripts, images, products) are not public, so each text is a
  placeholder naming the item.
- **mqm**: WMT 2021 TED talks, English to German, expert MQM annotations (Freitag et al.,
  "Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for Machine
  Translation", TACL 2021, https://aclanthology.org/2021.tacl-1.87;
  https://github.com/google/wmt-mqm-human-evaluation). One topic per source segment, its 14
  translations as texts; one vote per pair from the segment-level MQM scores (fewer error
  points wins; equal scores are "="). Systems that wrote the same translation of a
  segment count once (the first by system name). Segments without scores, with fewer than
  5 distinct translations, or whose translations all score the same (no order to find),
  are left out.

Votes of the webis and cj corpora are stored in the order of the two ids (the presentation
order of a judgement is not recorded there): "1" when the first id won.

Usage:
    python scripts/corpora_build.py --webis DIR --cj DIR --mqm DIR [--cache DIR]

`--cache` defaults to `$LLM_QUALITATIVE_SORT_CORPORA`, else `~/.cache/llm-qualitative-sort/
corpora`. Get the repositories with `git clone --depth 1 https://github.com/OWNER/NAME`.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import json
import os
import re
import subprocess
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

CACHE_VARIABLE = "LLM_QUALITATIVE_SORT_CORPORA"
WEBIS_FILES = {"arguments": "Webis-ArgQuality-20-Full/webis-argquality20-arguments.csv",
               "votes": "Webis-ArgQuality-20-Raw/webis-argquality20-raw-{dimension}.csv"}
MQM_FILES = {"scores": "ted/ende/mqm_ted_ende.avg_seg_scores.tsv",
             "annotations": "ted/ende/mqm_ted_ende.tsv"}
CJ_COVERAGE = 0.95
# Fewer texts leave no room for a ranking call of 4 to differ from a full round robin.
MIN_TEXTS = 5
# A judged pair's votes, keyed by its two ids in sorted order: "1" the first won.
Votes = dict[tuple[str, str], str]


def default_cache() -> Path:
    """Where built topics go unless `--cache` says otherwise."""
    found = os.environ.get(CACHE_VARIABLE)
    return Path(found) if found else Path.home() / ".cache" / "llm-qualitative-sort" / "corpora"


def read_text(repo: Path, path: str) -> str:
    """A file of a repository: from a clone's work tree, else from a git directory's HEAD."""
    if (repo / path).is_file():
        return (repo / path).read_text(encoding="utf-8")
    shown = subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{path}"],
                           capture_output=True, check=False)
    if shown.returncode:
        raise SystemExit(f"{path} is not in {repo}: {shown.stderr.decode().strip()}")
    return shown.stdout.decode("utf-8")


def tally(outcomes: Iterable[tuple[str, str, str]]) -> Votes:
    """Votes per pair from `(x, y, outcome)`, outcome "x", "y" or "=" (who won, or a tie).

    Example:
        >>> tally([("b", "a", "x"), ("a", "b", "="), ("a", "b", "y")])
        {('a', 'b'): '2=2'}
    """
    votes: defaultdict[tuple[str, str], str] = defaultdict(str)
    for x, y, outcome in outcomes:
        first_won = {"x": x < y, "y": y < x}.get(outcome)
        vote = "=" if first_won is None else "1" if first_won else "2"
        votes[(min(x, y), max(x, y))] += vote
    return dict(votes)


def coverage(votes: Mapping[tuple[str, str], str]) -> float:
    """The share of all pairs of the named items that hold at least one vote."""
    items = {item for pair in votes for item in pair}
    return len(votes) / (len(items) * (len(items) - 1) / 2) if len(items) > 1 else 0.0


def mqm_votes(scores: Mapping[str, float]) -> Votes:
    """One vote per pair of translations: the higher MQM score (fewer error points) wins.

    Example:
        >>> mqm_votes({"s1": -1.0, "s2": 0.0, "s3": -1.0})
        {('s1', 's2'): '2', ('s1', 's3'): '=', ('s2', 's3'): '1'}
    """
    votes: Votes = {}
    for x, y in itertools.combinations(sorted(scores), 2):
        gap = scores[x] - scores[y]
        votes[(x, y)] = "=" if gap == 0 else "1" if gap > 0 else "2"
    return votes


def topic_json(name: str, source: str, texts: Mapping[str, str], votes: Votes) -> dict[str, object]:
    """A replay topic of the items some vote names, in `load_replay_topic`'s format."""
    named = sorted({item for pair in votes for item in pair})
    return {"topic": name, "source": source, "args": {item: texts[item] for item in named},
            "pairs": [[x, y, stored] for (x, y), stored in sorted(votes.items())]}


def webis_topics(repo: Path, dimension: str) -> list[dict[str, object]]:
    """Webis-ArgQuality-20: one topic per query, one label per judged pair."""
    arguments = csv.DictReader(io.StringIO(read_text(repo, WEBIS_FILES["arguments"])))
    topic_of: dict[str, str] = {}
    texts: dict[str, str] = {}
    for row in arguments:
        key = f"{row['Discussion ID']}-{row['Argument ID']}"
        topic_of[key], texts[key] = row["Topic ID"], row["Premise"]
    outcomes: defaultdict[str, list[tuple[str, str, str]]] = defaultdict(list)
    path = WEBIS_FILES["votes"].format(dimension=dimension)
    for row in csv.DictReader(io.StringIO(read_text(repo, path))):
        a = f"{row['Discussion ID A']}-{row['Argument ID A']}"
        b = f"{row['Discussion ID B']}-{row['Argument ID B']}"
        if a in topic_of and topic_of[a] == topic_of.get(b) and a != b:
            outcome = {"A": "x", "B": "y"}.get(row["Comparison"], "=")
            outcomes[topic_of[a]].append((a, b, outcome))
    source = f"Webis-ArgQuality-20, {dimension} quality"
    return [topic_json(f"webis-{topic:0>2}", source, texts, tally(found))
            for topic, found in sorted(outcomes.items())]


def cj_topics(repo: Path) -> list[dict[str, object]]:
    """The CJ sessions in which at least 95 % of all pairs were judged."""
    listing = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "--name-only", "HEAD:data"],
                             capture_output=True, check=False).stdout.decode().split()
    names = listing or [p.name for p in (repo / "data").glob("*.csv")]
    topics = []
    for name in sorted(n for n in names if n.endswith(".csv") and not n[0].isdigit()):
        try:
            rows = list(csv.DictReader(io.StringIO(read_text(repo, f"data/{name}"))))
        except (SystemExit, UnicodeDecodeError):
            continue  # stored outside git (LFS) in the mirror: not readable here
        won = "candidate_chosen" if rows and "candidate_chosen" in rows[0] else "won"
        lost = "candidate_not_chosen" if won == "candidate_chosen" else "lost"
        votes = tally((r[won], r[lost], "x") for r in rows
                      if r.get(won) not in (None, "", "NA") and r.get(lost) not in (None, "", "NA")
                      and r[won] != r[lost])
        if coverage(votes) >= CJ_COVERAGE and len({i for p in votes for i in p}) >= MIN_TEXTS:
            items = {item for pair in votes for item in pair}
            texts = {item: f"Item {item} of {name[:-4]}" for item in items}
            topics.append(topic_json(f"cj-{name[:-4]}", "Kinnear, Jones & Davies (2025)",
                                     texts, votes))
    return topics


def mqm_topics(repo: Path) -> list[dict[str, object]]:
    """WMT21 TED en-de: one topic per scored segment whose translations do not all tie."""
    scores: defaultdict[str, dict[str, float]] = defaultdict(dict)
    for line in read_text(repo, MQM_FILES["scores"]).splitlines()[1:]:
        system, score, segment = line.split()
        if score != "None":
            scores[segment][system] = float(score)
    texts: dict[str, str] = {}
    for row in csv.reader(io.StringIO(read_text(repo, MQM_FILES["annotations"])),
                          delimiter="\t", quoting=csv.QUOTE_NONE):
        system = "ref-A" if row[0] == "ref" else row[0]
        # The annotations mark each error span in the target with <v>…</v>.
        texts[f"{row[3]}:{system}"] = re.sub(r"</?v>", "", row[6])
    topics = []
    for segment, by_system in sorted(scores.items(), key=lambda kv: int(kv[0])):
        named: dict[str, float] = {}
        seen: set[str] = set()
        for system, score in sorted(by_system.items()):
            key = f"{segment}:{system}"
            # Systems that wrote the same translation show one text, judged once.
            if key in texts and texts[key] not in seen:
                seen.add(texts[key])
                named[key] = score
        if len(named) >= MIN_TEXTS and len(set(named.values())) > 1:
            topics.append(topic_json(f"mqm-{int(segment):03d}", "WMT21 TED en-de MQM",
                                     texts, mqm_votes(named)))
    return topics


def write(topics: list[dict[str, object]], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for topic in topics:
        (folder / f"{topic['topic']}.json").write_text(json.dumps(topic, ensure_ascii=False),
                                                       encoding="utf-8")
    print(f"{len(topics)} topics in {folder}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--webis", type=Path, help="acl20-efficient-argument-quality-annotation")
    parser.add_argument("--webis-dimension", default="rhetorical",
                        choices=["rhetorical", "logical", "dialectical"])
    parser.add_argument("--cj", type=Path, help="a copy of georgekinnear/cj-meta-analysis")
    parser.add_argument("--mqm", type=Path, help="a copy of google/wmt-mqm-human-evaluation")
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args(argv)
    if args.webis:
        write(webis_topics(args.webis, args.webis_dimension), args.cache / "webis")
    if args.cj:
        write(cj_topics(args.cj), args.cache / "cj")
    if args.mqm:
        write(mqm_topics(args.mqm), args.cache / "mqm")


if __name__ == "__main__":
    main()
