"""The HTML report as headless Chromium draws it: isolation of direction marks, Japanese pages.

Skipped where no `chromium` (or `chromium-browser`) is on the PATH.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from llm_qualitative_sort import MatchResult, RoundResult, SortResult, Statistics
from llm_qualitative_sort.reports import write_report
from llm_qualitative_sort.reports._text import isolated
from llm_qualitative_sort.verdicts import RankingCall

RLO = "\u202e"
LONG_JA = "吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で" * 2
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed here")


def _result(items: list[str]) -> SortResult:
    a, b = items[0], items[1]
    call = RoundResult("AB", "A", f"{RLO}reasoning", False)
    match = MatchResult(a, b, "A", [call, call], 1)
    rest = [(3 + i, [t]) for i, t in enumerate(items[2:])]
    return SortResult([(1, [a]), (2, [b]), *rest], [match], Statistics(1, 2, 0, 0.1), "r")


def _chromium(page: Path, png: Path, size: str, *flags: str) -> None:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *flags,
                        f"--user-data-dir={profile}", f"--screenshot={png}",
                        f"--window-size={size}", page.as_uri()],
                       check=True, capture_output=True, timeout=120)


def _shot(html: str, folder: Path, name: str) -> bytes:
    page, png = folder / f"{name}.html", folder / f"{name}.png"
    page.write_text(html, encoding="utf-8")
    _chromium(page, png, "600,120", "--no-first-run", "--hide-scrollbars")
    return png.read_bytes()


def test_chromium_draws_an_isolated_override_like_the_reversed_text_alone(tmp_path: Path) -> None:
    """An override reverses its own item and nothing else.

    Drawn by Chromium: the item "abc" behind an override, isolated as the report does it,
    must look exactly like the already-reversed text "cba" with its neighbours unchanged;
    the same without isolation must not (it flips the neighbour too).
    """
    def page(middle: str) -> str:
        return ('<!DOCTYPE html><html lang="en"><body style="font: 24px monospace">'
                f"<p>left {middle} right</p></body></html>")

    isolated_shot = _shot(page(isolated(f"{RLO}abc")), tmp_path, "isolated")
    reference = _shot(page("cba"), tmp_path, "reference")
    leaking = _shot(page(f"{RLO}abc"), tmp_path, "leaking")
    assert isolated_shot == reference
    assert leaking != reference


def test_chromium_renders_a_japanese_report(tmp_path: Path) -> None:
    path = write_report(_result(["吾輩は猫である。名前はまだ無い。", LONG_JA, f"{RLO}evil"]),
                        tmp_path / "r.html", {"criteria": "どちらが印象的か"}, lang="ja")
    png = tmp_path / "r.png"
    _chromium(path, png, "1280,1600")
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_chromium_renders_the_table_of_ranking_calls(tmp_path: Path, lang: str) -> None:
    texts = ("吾輩は猫である。名前はまだ無い。", LONG_JA, f"{RLO}evil", "a plain text")
    calls = [RankingCall(texts, ((texts[2],), (texts[0], texts[1]), (texts[3],)), "C first",
                         False, 100, 10, 1),
             RankingCall(texts, None, "no usable order", False, 100, 10, 1,
                         problem="not an order of the texts shown: 'A' is named twice")] * 30
    result = SortResult([(i + 1, [t]) for i, t in enumerate(texts)], [],
                        Statistics(0, 60, 0, 0.1), "r", ranking_calls=tuple(calls))
    path = write_report(result, tmp_path / "r.html", {"criteria": "c", "strategy": "swiss",
                                                       "group_size": 4}, lang=lang)
    # Opened, as a reader who unfolds the table sees it.
    path.write_text(path.read_text(encoding="utf-8").replace("<details>", "<details open>"),
                    encoding="utf-8")
    png = tmp_path / "r.png"
    _chromium(path, png, "1280,4000")
    assert png.stat().st_size > 10_000
