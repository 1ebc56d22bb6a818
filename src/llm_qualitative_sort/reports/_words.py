"""The HTML report's own words, in English and Japanese (`lang="ja"`)."""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
    "title": "Ranking",
    "statistics": "Statistics",
    "ranking": "Ranking",
    "ranking_note": "Items with equal wins share a rank. Open an item to read its matches "
                    "and the judge's reasoning (the first is open).",
    "rank": "Rank", "item": "Item", "id": "ID", "wins": "Wins", "losses": "Losses",
    "round": "Round", "opponent": "Opponent", "result": "Result", "calls": "Calls",
    "won": "won", "lost": "lost", "draw": "draw", "tied": "tied ×{n}",
    "this": "this", "other": "opponent", "no_verdict": "no verdict",
    "shown_first": "this item shown first", "shown_second": "this item shown second",
    "cached": "cached",
    "brackets": "How the brackets emptied",
    "brackets_note": "Players in each loss bracket after every round; {n} loss(es) eliminate.",
    "eliminated": "eliminated", "n_losses": "{n} loss(es)",
    "chart_brackets": "Players per bracket, round by round", "start": "start",
    "after_round": "after round {n}",
    "wins_title": "Wins per item", "wins_note": "Best first.",
    "wins_more": " The first {shown} of {total} items are shown.",
    "run_id": "run id",
    "total_matches": "total matches", "total_api_calls": "total api calls",
    "cache_hits": "cache hits", "elapsed_time": "elapsed time", "failed_calls": "failed calls",
    "draws": "draws", "rounds": "rounds", "input_tokens": "input tokens",
    "output_tokens": "output tokens", "estimated_cost": "estimated cost",
}

JA: Mapping[str, str] = {
    "title": "ランキング",
    "statistics": "統計",
    "ranking": "ランキング",
    "ranking_note": "勝利数が同じ項目は同順位です。項目を開くと対戦と判定理由が読めます"
                    "（最初の項目は開いています）。",
    "rank": "順位", "item": "項目", "id": "ID", "wins": "勝", "losses": "敗",
    "round": "回戦", "opponent": "対戦相手", "result": "結果", "calls": "判定",
    "won": "勝ち", "lost": "負け", "draw": "引き分け", "tied": "{n}件が同順位",
    "this": "この項目", "other": "相手", "no_verdict": "判定なし",
    "shown_first": "この項目を先に提示", "shown_second": "この項目を後に提示",
    "cached": "キャッシュ",
    "brackets": "ブラケットの推移",
    "brackets_note": "各回戦後の敗数別の参加者数。{n}敗で敗退。",
    "eliminated": "敗退", "n_losses": "{n}敗",
    "chart_brackets": "回戦ごとのブラケット別参加者数", "start": "開始",
    "after_round": "{n}回戦後",
    "wins_title": "項目別の勝利数", "wins_note": "上位から表示。",
    "wins_more": "全{total}件のうち上位{shown}件を表示。",
    "run_id": "実行ID",
    "total_matches": "対戦数", "total_api_calls": "API呼び出し", "cache_hits": "キャッシュ利用",
    "elapsed_time": "所要時間", "failed_calls": "判定失敗", "draws": "引き分け",
    "rounds": "回戦数", "input_tokens": "入力トークン", "output_tokens": "出力トークン",
    "estimated_cost": "推定コスト",
    # Names of the run's settings, as listed under the title.
    "setting_provider": "プロバイダ", "setting_model": "モデル",
    "setting_elimination_count": "敗退までの敗数", "setting_comparison_rounds": "1対戦の判定回数",
    "setting_seed": "シード", "setting_ranking": "順位付け",
}

LANGUAGES = {"en": EN, "ja": JA}


def words(lang: str | None) -> Mapping[str, str]:
    """The report's words in `lang` (English unless "ja")."""
    return LANGUAGES.get(lang or "en", EN)
