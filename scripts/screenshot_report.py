"""Render HTML reports in headless Chromium and save screenshots to look at.

Not part of CI (it needs Debian's `chromium`). Usage:

    PYTHONPATH=src python scripts/screenshot_report.py [OUT_DIR] [WIDTH]

Writes `demo.html` (the bundled demo), `tricky.html` (Japanese text long and short, markup,
a script tag, a right-to-left override inside an item, ids) and `tricky_ja.html` (the same
with the report's words in Japanese), and `panel.html` / `panel_ja.html` (the tricky items
judged by a panel of two mocks leaning opposite ways, four calls per match: the trust
section with its warnings, the forest plot, the audit and the judges' table), with a PNG
of each, WIDTH pixels wide (1280 unless given; 600 shows a phone's layout). The panel
reports are written as the command line writes them (`front_end="cli"`), so their advice
names flags; the others as Python does. `soft.html` / `soft_ja.html`: a Swiss run with soft
verdicts (a mock stating calibrated probabilities): each call's probability, the share of
soft calls and the calibration in the trust section.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from llm_qualitative_sort import (
    MockLLMProvider,
    PanelProvider,
    QualitativeSorter,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.cli._providers import demo_set, mock_score
from llm_qualitative_sort.reports import write_report

TRICKY = {
    "吾輩は猫である。名前はまだ無い。": 90,
    "国境の長いトンネルを抜けると雪国であった。": 88,
    "<script>alert('xss')</script> should show as text": 70,
    'A "quoted" & <b>bold</b> claim\nspanning two lines': 60,
    "メロスは激怒した。必ず、かの邪智暴虐の王を除かなければならぬと決意した。": 85,
    "An ordinary sentence about the weather.": 20,
    "</details></td></tr></table><h1>broken?</h1>": 40,
    "Plain text number seven": 30,
    "吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で"
    "一番獰悪な種族であったそうだ。": 80,
    "evil \u202etxet desrever, no end mark": 50,
    "混在 mixed 日本語 and English text, long enough to be cut in the chart labels": 65,
}
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars",
]


async def _soft_sort(texts: dict[str, int], criteria: str) -> SortResult:
    """Soft verdicts: a Swiss run whose judge states calibrated probabilities."""
    judge = MockLLMProvider(seed=7, score=lambda text: texts[text], noise_stddev=12.0,
                            logprobs="calibrated")
    sorter = QualitativeSorter(judge, criteria=criteria, seed=7, checkpointer=None,
                               strategy=Swiss(budget=60, comparison_rounds=2,
                                              verdicts="soft"))
    return await sorter.sort(list(texts))


async def _sort(texts: dict[str, int], criteria: str, n_losses: int, *,
                panel: bool = False) -> SortResult:
    judge = MockLLMProvider(seed=7, score=lambda text: texts[text])
    rounds = 2
    if panel:  # two judges leaning opposite ways, each judging every match in both orders
        judge = PanelProvider([
            MockLLMProvider(seed=7, score=lambda text: texts[text], pair_bias=(6.0, 0.0)),
            MockLLMProvider(seed=8, score=lambda text: texts[text], pair_bias=(-6.0, 0.0))])
        rounds = 4
    sorter = QualitativeSorter(judge, criteria=criteria, elimination_count=n_losses, seed=7,
                               comparison_rounds=rounds, checkpointer=None)
    return await sorter.sort(list(texts))


def screenshot(html: Path, png: Path, height: int = 2800, width: int = 1280) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("chromium not found: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
             f"--window-size={width},{height}", html.resolve().as_uri()],
            check=True, capture_output=True, timeout=120,
        )
    print(f"{png} ({png.stat().st_size} bytes)")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots")
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1280
    out.mkdir(parents=True, exist_ok=True)
    demo = demo_set()
    texts = {text: int(mock_score(text)) for text in demo["texts"]}
    reports = {
        "demo": (asyncio.run(_sort(texts, demo["criteria"], 3)), demo["criteria"], 3),
        "tricky": (asyncio.run(_sort(TRICKY, "どちらの文がより印象的か", 2)),
                   "どちらの文がより印象的か <i>(criterion with markup)</i>", 2),
    }
    reports["tricky_ja"] = reports["tricky"]
    reports["panel"] = (asyncio.run(_sort(TRICKY, "どちらの文がより印象的か", 3, panel=True)),
                        "どちらの文がより印象的か", 3)
    reports["panel_ja"] = reports["panel"]
    reports["soft"] = (asyncio.run(_soft_sort(TRICKY, "どちらの文がより印象的か")),
                       "どちらの文がより印象的か", 0)
    reports["soft_ja"] = reports["soft"]
    for name, (result, criteria, n_losses) in reports.items():
        rounds = 4 if name.startswith("panel") else 2
        settings: dict[str, object] = {"criteria": criteria, "provider": "mock",
                                       "elimination_count": n_losses,
                                       "comparison_rounds": rounds, "seed": 7, "top_k": 5}
        if name.startswith("soft"):
            settings = {"criteria": criteria, "provider": "mock", "strategy": "swiss",
                        "budget": 60, "comparison_rounds": 2, "seed": 7, "top_k": 5,
                        "verdicts": "soft"}
        ids = {item: f"row-{n}" for n, (_, group) in enumerate(result.rankings) for item in group}
        html = write_report(result, out / f"{name}.html", settings, ids=ids,
                            lang="ja" if name.endswith("_ja") else None,
                            front_end="cli" if name.startswith("panel") else "python")
        screenshot(html, out / f"{name}.png", width=width)


if __name__ == "__main__":
    main()
