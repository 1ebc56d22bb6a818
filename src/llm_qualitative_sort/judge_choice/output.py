"""A `JudgeChoice` written out: a text table, JSON, or one self-contained HTML page.

The HTML page is rendered from `reports/templates/judge_choice.html.j2` with autoescaping
(judges' and prompts' names are the user's), in English or Japanese (`lang="ja"`), with
the reports' stylesheet and no script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache

from jinja2 import Environment, PackageLoader

from llm_qualitative_sort.judge_choice.result import JudgeChoice, JudgeTrial
from llm_qualitative_sort.reports._style import CSS
from llm_qualitative_sort.results.agreement import Interval

_CSP = "default-src 'none'; style-src 'unsafe-inline'"

WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "title": "Choosing a judge and a prompt",
        "asked_pairwise": "{items} labelled texts, {pairs} labelled pairs ({verdicts} "
                          "verdicts of people); each judge × prompt was asked every pair "
                          "in both orders.",
        "asked_pointwise": "{items} labelled texts, {pairs} labelled pairs ({verdicts} "
                           "verdicts of people); each judge × prompt scored every text "
                           "alone, and a pair's verdict is the higher score.",
        "judge": "judge", "prompt": "prompt", "agreement": "agreement",
        "kappa": "κ ({level} CI)", "first": "first shown wins ({level} CI)",
        "length": "length logit/sd ({level} CI)", "no_verdict": "no verdict",
        "calls": "calls", "tokens": "tokens/call", "cost": "cost/call",
        "people_length": "people's own length preference: {value}",
        "recommended": "recommended: {judge} with the prompt {prompt} (κ {kappa})",
        "none": "no recommendation: no judge × prompt gave a verdict to compare",
        "settled": "settled: its κ interval lies above every other row's",
        "unsettled": "not settled: its κ interval overlaps {others}'s; more labelled pairs "
                     "would tell them apart",
        "rule": "rule: {rule}",
        "notes": "κ is Cohen's κ over A / tie / B against the people's verdicts (0 is "
                 "chance, 1 full agreement). “First shown wins” is the share of decided "
                 "calls won by the text shown first (0.5: no lean). The length preference "
                 "is in logits per standard deviation of log length; set it beside the "
                 "people's own.",
    },
    "ja": {
        "title": "審査モデルとプロンプトの選択",
        "asked_pairwise": "ラベル付きテキスト {items} 件、ラベル付きペア {pairs} 組（人の判定 "
                          "{verdicts} 件）。各審査モデル × プロンプトに全ペアを両方の提示順で"
                          "尋ねました。",
        "asked_pointwise": "ラベル付きテキスト {items} 件、ラベル付きペア {pairs} 組（人の判定 "
                           "{verdicts} 件）。各審査モデル × プロンプトが各テキストを単独で採点し、"
                           "ペアの判定は高い方の得点です。",
        "judge": "審査モデル", "prompt": "プロンプト", "agreement": "一致率",
        "kappa": "κ（{level} 区間）", "first": "先に示した側の勝率（{level} 区間）",
        "length": "長さの選好 logit/sd（{level} 区間）", "no_verdict": "判定なし",
        "calls": "呼び出し", "tokens": "トークン/回", "cost": "費用/回",
        "people_length": "人自身の長さの選好: {value}",
        "recommended": "推奨: {judge}、プロンプト {prompt}（κ {kappa}）",
        "none": "推奨なし: 比較できる判定を返した組み合わせがありません",
        "settled": "確定: その κ 区間は他のすべての行より上にあります",
        "unsettled": "未確定: その κ 区間は {others} の区間と重なります。ラベル付きペアを増やすと"
                     "区別できます",
        "rule": "規則: {rule}",
        "notes": "κ は人の判定に対する A / 引き分け / B の Cohen の κ です"
                 "（0 は偶然、1 は完全一致）。"
                 "「先に示した側の勝率」は決着した呼び出しのうち先に示したテキストが勝った割合"
                 "（0.5 で偏りなし）。長さの選好は対数長 1 標準偏差あたりの logit で、人自身の値と"
                 "並べて読んでください。",
    },
}
RULES = {"ja": "人の判定との Cohen の κ が最も高いもの（同じなら一致率が高いもの、次に 1 回あたりの"
               "費用が低いもの）。その κ 区間が他のすべての行の区間より上にあれば確定"}


def _words(lang: str) -> Mapping[str, str]:
    if lang not in WORDS:
        raise ValueError(f"lang must be one of {', '.join(map(repr, WORDS))}, got {lang!r}")
    return WORDS[lang]


def _interval(found: Interval | None, digits: int = 2, signed: bool = False) -> str:
    if found is None or found.value is None:
        return "—"
    shown = f"{found.value:+.{digits}f}" if signed else f"{found.value:.{digits}f}"
    if found.low is None or found.high is None:
        return shown
    return f"{shown} ({found.low:.{digits}f} to {found.high:.{digits}f})"


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _number(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _cells(trial: JudgeTrial) -> list[str]:
    figures = trial.agreement
    return [trial.judge, trial.prompt, _share(figures.agreement), _interval(figures.kappa),
            _interval(trial.first_shown), _interval(trial.length, signed=True),
            str(figures.no_verdict), str(trial.calls), _number(trial.tokens_per_call, 0),
            _number(trial.cost_per_call, 6)]


def _header(words: Mapping[str, str], level: float) -> list[str]:
    shown = f"{level:.0%}"
    return [words["judge"], words["prompt"], words["agreement"],
            words["kappa"].format(level=shown), words["first"].format(level=shown),
            words["length"].format(level=shown), words["no_verdict"], words["calls"],
            words["tokens"], words["cost"]]


def _verdict_lines(choice: JudgeChoice, words: Mapping[str, str], lang: str) -> list[str]:
    lines = [words["people_length"].format(value=_interval(choice.people_length, signed=True))]
    best = choice.recommended
    if best is None:
        return [*lines, words["none"]]
    lines.append(words["recommended"].format(judge=best.judge, prompt=best.prompt,
                                             kappa=_interval(best.agreement.kappa)))
    if choice.unsettled:
        others = ", ".join(f"{t.judge} ({t.prompt})" for t in choice.unsettled)
        lines.append(words["unsettled"].format(others=others))
    else:
        lines.append(words["settled"])
    lines.append(words["rule"].format(rule=RULES.get(lang, choice.rule)))
    return lines


def text_table(choice: JudgeChoice, lang: str = "en") -> str:
    """The rows, best first, as aligned columns, then the recommendation and its rule."""
    words = _words(lang)
    rows = [_header(words, choice.level)] + [_cells(t) for t in choice.trials]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    table = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)
                       ).rstrip() for row in rows]
    asked = words[f"asked_{choice.strategy}"].format(items=choice.items, pairs=choice.pairs,
                                                     verdicts=choice.verdicts)
    return "\n".join([asked, "", *table, "", *_verdict_lines(choice, words, lang)]) + "\n"


def choice_json(choice: JudgeChoice) -> str:
    """Everything as JSON (`JudgeChoice.to_data`), indented."""
    return json.dumps(choice.to_data(), indent=1, ensure_ascii=False) + "\n"


@cache
def _environment() -> Environment:
    return Environment(loader=PackageLoader("llm_qualitative_sort.reports", "templates"),
                       autoescape=True, keep_trailing_newline=True)


def choice_html(choice: JudgeChoice, lang: str = "en") -> str:
    """One self-contained HTML page (inline CSS, no script, no network)."""
    words = _words(lang)
    template = _environment().get_template("judge_choice.html.j2")
    return template.render(
        lang=lang, w=words, css=CSS, csp=_CSP, header=_header(words, choice.level),
        rows=[_cells(t) for t in choice.trials],
        recommended=[t is choice.recommended for t in choice.trials],
        asked=words[f"asked_{choice.strategy}"].format(items=choice.items, pairs=choice.pairs,
                                                       verdicts=choice.verdicts),
        lines=_verdict_lines(choice, words, lang))
