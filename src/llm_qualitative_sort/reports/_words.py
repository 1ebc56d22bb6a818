"""The HTML report's own words, in English and Japanese (`lang="ja"`)."""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
    "title": "Ranking",
    "scores_title": "Scores",
    "scores_note": "Each text was scored alone on a labelled scale; its score (0–1, higher "
                   "is better) is the mean of its calls' expected labels. Equal scores share "
                   "a rank. Open an item to read each call's label and the judge's reason.",
    "scores_note_inverse": " The judge was asked how far each text is from meeting the "
                           "criterion: the score is the complement.",
    "score": "Score", "label": "Label", "expected": "expected", "reason": "Reason",
    "labels_title": "Labels given", "labels_note": "How many calls gave each label, and "
                    "the mean probability of each label over all calls.",
    "calls_count": "Calls", "mean_probability": "Mean probability",
    "trust_note_pointwise": "Scores are each text's mean expected label on 0–1 (1 the top "
                            "label). Whiskers are 95 % intervals over its repetitions (none "
                            "with one call); rows that share a rank are marked “=” and shaded "
                            "together.",
    "score_axis_pointwise": "score (mean expected label, 0–1)",
    "s_top_k_pointwise": "By the scores' spread over {calls} scored calls, the {k} items ranked "
                         "highest hold {expected} of the top {k} on average (the sum of their "
                         "P(top {k})).",
    "statistics": "Statistics",
    "ranking": "Ranking",
    "ranking_note": "Items with equal wins share a rank. Open an item to read its matches "
                    "and the judge's reasoning (the first is open).",
    "ranking_note_score": "Ranked by Bradley–Terry score (see above); wins and losses are "
                          "counts of matches. Open an item to read its matches and the "
                          "judge's reasoning (the first is open).",
    "ranking_note_anchored": "Ranked by the judge's Bradley–Terry fit anchored by people's "
                             "labels (see above); wins and losses are counts of matches. Open "
                             "an item to read its matches and the judge's reasoning (the first "
                             "is open).",
    "rank": "Rank", "item": "Item", "id": "ID", "wins": "Wins", "losses": "Losses",
    "round": "Round", "opponent": "Opponent", "result": "Result", "calls": "Calls",
    "won": "won", "lost": "lost", "draw": "draw", "tied": "tied ×{n}",
    "this": "this", "other": "opponent", "no_verdict": "no verdict",
    "tie_verdict": "tie",
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
    "output_tokens": "output tokens", "tokens_per_text": "tokens per text",
    "estimated_cost": "estimated cost",
    "batch_calls": "batch calls", "tied_calls": "tied calls", "tie_col": "Ties",
    "rate_limited": "429s (rate limit)", "rate_wait": "waiting for the rate limit",
    "early_stop": "Stopped early: the top {k} were settled{sure} after {used} of {budget} "
                  "judgements; the other {unspent} were not spent.",
    "early_stop_sure": " ({share} expected right)",
    "judge": "Judge",
    # Checked against people's labels.
    "people_none": "Not checked against people.", "people_join": " ",
    "people_agreed": "The judge agreed with {agreed} of {compared} human verdicts, κ {kappa} "
                     "(95 % CI {low}–{high}).",
    "people_agreed_no_kappa": "The judge agreed with {agreed} of {compared} human verdicts "
                              "(κ undefined: one label only).",
    "people_no_verdict": "{n} of its calls on labelled pairs gave no verdict.",
    "people_rho": "Its order of the labelled items against people's: Spearman ρ {rho}.",
    "people_tau": "Against people's scores: Kendall τ-b {tau}.",
    "people_order_anchored": "The ranking is the judge's fit anchored by people's labels.",
    "people_order_judge": "The ranking is the judge's own.",
    "disagreements": "Where the judge disagreed with people",
    "disagreements_more": "The first {shown} of {total} are listed; the JSON report has all.",
    "pair": "Pair", "person": "Person", "judge_said": "Judge", "shown_col": "Shown",
    "said_a": "first better", "said_b": "second better", "said_tie": "equal",
    "a_first": "first shown first", "b_first": "second shown first",
    "slot_bias": "Where the ranking calls put their first place",
    "slot_bias_note": "Each ranking call showed its texts in a random order, so without a "
                      "lean every slot holds the first place equally often (the share "
                      "expected). A slot whose interval lies above that is favoured for "
                      "where it is shown.",
    "slot_col": "Slot shown / texts", "slot_first_col": "First places / calls",
    "slot_share_col": "Share", "slot_interval_col": "95 % interval",
    "slot_expected_col": "Expected without a lean",
    "ranking_calls": "The ranking calls",
    "ranking_calls_note": "Each call showed its texts in this order, labelled A, B, C…; the "
                          "judge's order is in those labels, best first (texts sharing a "
                          "place joined by =).",
    "ranking_calls_more": "The first {shown} of {total} calls are listed; the JSON report "
                          "has all.",
    "texts_shown_col": "Texts as shown", "order_col": "Judge's order", "no_order": "no order",
    # The trust section.
    "trust": "How sure is this ranking?",
    "trust_note": "Scores are Bradley–Terry log-strengths fitted to every call (0 is the "
                  "average item; a gap of 1 means the higher one wins about 73 % of calls). "
                  "Whiskers are 95 % intervals; rows that share a rank are marked “=” and "
                  "shaded together.",
    "forest_title": "Score and 95 % interval of the first {n} items",
    "forest_more": "The plot shows the first {shown} of the {total} items.",
    "p_top_k": "P(top {k})", "top_k_rule": "top {k} ↑",
    "score_axis": "score (log-strength; 0 is the average item)",
    "warn_order": "Poor order consistency: in {share} of the {pairs} AB/BA pairs the two "
                  "orders gave different winners, so the verdict followed the position rather "
                  "than the texts: more than {limit} of pairs, by a one-sided binomial test at "
                  "the {level} level. More calls per match ({more}), a panel of judges "
                  "({panel}) or another judge would help.",
    "warn_top_k": "The top {k} are not separated from the rest: about {missing} of the {k} "
                  "items ranked highest may not belong there. More calls would separate them, "
                  "for example a Swiss run with twice the calls: {swiss}.",
    "s_position": "{who} preferred the first-shown text in {share} of {calls} calls with a "
                  "verdict. For two equally good texts, the first-shown one is estimated to "
                  "win {equal} of the time (95 %: {low} to {high}), {basis}.",
    "s_length_longer": "{who} favoured longer texts: {beta} logit per sd of log length "
                       "(95 % CI {low} to {high}).",
    "s_length_shorter": "{who} favoured shorter texts: {beta} logit per sd of log length "
                        "(95 % CI {low} to {high}).",
    "s_length_none": "{who} showed no clear preference for text length: {beta} logit per sd "
                     "of log length (95 % CI {low} to {high}).",
    "s_length_people": "People, on the pairs they labelled: {beta} logit per sd of log length "
                       "(95 % CI {low} to {high}).",
    "adjusted": "Order with the judge's preference for {covariates} taken out",
    "adjusted_note": "Beside the ranking above, not in its place: each item's score less the "
                     "part the judge's preference for {covariates} explains ({effects}). A "
                     "judge may be right to prefer them; people's verdicts can tell.",
    "adjusted_effect": "{name} {beta} logit per sd",
    "adjusted_score": "Adjusted score (95 %)", "raw_rank": "Rank in the ranking",
    "covariate_length": "length",
    "basis_swapped_pairs": "from the {n} AB/BA pairs whose two orders gave different winners",
    "basis_model": "from {n} calls, fitted with the texts' strengths",
    "few_pairs": "Only {n} pairs (fewer than {few}): this figure is uncertain.",
    "few_calls": "Only {n} calls (fewer than {few}): this figure is uncertain.",
    "few_prompts": "Only {n} shared prompts (fewer than {few}): this figure is uncertain.",
    "few_none": "With none, this figure rests on nothing but its prior: ignore it.",
    "few_mark": "* Rests on fewer than {few} calls or pairs: uncertain.",
    "n_pairs": "{n} pairs", "n_calls": "{n} calls",
    "who_one": "The judge", "who_panel": "The judges together",
    "s_order": "In {share} of the {pairs} AB/BA pairs the two orders gave different winners; "
               "each split its match's calls (with two calls per match, a draw that costs "
               "both items a loss).",
    "s_order_none": "No match showed a pair in both orders (one call per match), so order "
                    "consistency was not measured.",
    "s_agree": "{a} and {b} picked the same text on {share} of the {prompts} prompts both "
               "answered (Cohen's κ = {kappa}: 1 is perfect agreement, 0 what chance would "
               "give).",
    "s_agree_none": "{a} and {b} never answered the same prompt: with {j} judges, "
                    "{advice} has every judge judge every match in both orders.",
    "s_ties": "{tied} of {n} items share their rank with another; the largest tied block "
              "holds {largest}.",
    "s_no_ties": "No two items share a rank.",
    "s_top_k": "By the model, fitted to {calls} calls with a verdict, the {k} items ranked "
               "highest hold {expected} of the true top {k} on average (the sum of their "
               "P(top {k})).",
    "s_failed": "{failed} of {calls} calls ({share}) gave no verdict and counted for neither "
                "text.",
    "judges": "Judges", "number_col": "#", "calls_col": "Calls", "no_verdict_col": "No verdict",
    "tokens_col": "Tokens in / out", "cost_col": "Cost", "first_col": "First-shown won",
    "advantage_col": "Advantage (95 %)", "disagree_col": "Orders disagreed",
    # Soft verdicts: each call's probability, their share and their calibration.
    "prob_title": "The judge's probability, from its log-probabilities, that this item wins "
                  "this call",
    "s_soft": "{soft} of {calls} calls with a verdict ({share}) carried the judge's "
              "probability that the first-shown text wins (soft verdicts); the others were "
              "hard verdicts.",
    "soft_used": "The fit behind the scores took these probabilities as the calls' outcomes.",
    "soft_unused": "This run's fit counted the verdicts only (verdicts: hard).",
    "s_brier": "Scored against the same match's call in the other order ({pairs} calls), "
               "the probabilities have a Brier score of {brier} (0 is perfect; always saying "
               "50 % scores 0.25).",
    "s_brier_none": "No match was judged in both orders, so the probabilities could not be "
                    "checked against an outcome.",
    "calibration": "Calibration of the judge's probabilities",
    "calibration_note": "The soft calls grouped by the probability the judge gave the "
                        "first-shown text, against how often that text won the call in the "
                        "other order. For a calibrated judge the two columns agree.",
    "stated_col": "Stated probability", "mean_stated_col": "Mean stated",
    "observed_col": "Observed share",
    # A Swiss run with a pre-pass, under the title; a pointwise run's first card.
    "phases": "pre-pass: {texts} texts scored alone ({scored} scored), then {matches} Swiss "
              "matches ({calls} calls)",
    "texts_scored": "texts scored alone",
    # A pre-pass's score in an item's list of matches, where an opponent would be.
    "scored_alone": "scored alone (pre-pass)",
}

JA: Mapping[str, str] = {
    "scores_title": "スコア",
    "scores_note": "各テキストを単独でラベル付きの尺度により評価しました。"
                   "スコア（0〜1、高いほど良い）は各呼び出しの期待ラベルの平均です。同じスコアは同順位です。項目を開くと各呼び出しの"
                   "ラベルと審査員の理由を読めます。",
    "scores_note_inverse": "審査員には各テキストが基準を満たすことからどれだけ遠いかを尋ねたため、"
                           "スコアはその補数です。",
    "score": "スコア", "label": "ラベル", "expected": "期待値", "reason": "理由",
    "labels_title": "付けられたラベル", "labels_note": "各ラベルを付けた呼び出しの数と、"
                    "全呼び出しにわたる各ラベルの確率の平均。",
    "calls_count": "呼び出し", "mean_probability": "確率の平均",
    "trust_note_pointwise": "スコアは各テキストの期待ラベルの平均（0〜1、1が最上位のラベル）です。"
                            "ひげは繰り返しにわたる95 %区間（呼び出し1回ならなし）、同順位の行は"
                            "「=」を付けて同じ帯で示します。",
    "score_axis_pointwise": "スコア（期待ラベルの平均、0〜1）",
    "s_top_k_pointwise": "評価した{calls}回の呼び出しのスコアのばらつきによれば、上位{k}件には"
                         "上位{k}件のうち平均{expected}件が入っています（各項目の上位{k}に入る"
                         "確率の和）。",
    "title": "ランキング",
    "statistics": "統計",
    "ranking": "ランキング",
    "ranking_note": "勝利数が同じ項目は同順位です。項目を開くと対戦と判定理由が読めます"
                    "（最初の項目は開いています）。",
    "ranking_note_anchored": "人のラベルで補正した判定者のBradley–Terry推定（上記）の順です。"
                             "勝・敗は対戦の数です。項目を開くと対戦と判定者の理由を読めます"
                             "（最初の項目は開いています）。",
    "ranking_note_score": "Bradley–Terryスコア（上記）の順です。勝・敗は対戦の数です。"
                          "項目を開くと対戦と判定理由が読めます（最初の項目は開いています）。",
    "rank": "順位", "item": "項目", "id": "ID", "wins": "勝", "losses": "敗",
    "round": "回戦", "opponent": "対戦相手", "result": "結果", "calls": "判定",
    "won": "勝ち", "lost": "負け", "draw": "引き分け", "tied": "{n}件が同順位",
    "this": "この項目", "other": "相手", "no_verdict": "判定なし", "tie_verdict": "同等",
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
    "tokens_per_text": "テキストあたりのトークン",
    "estimated_cost": "推定コスト", "batch_calls": "バッチ呼び出し",
    "tied_calls": "引き分け判定", "tie_col": "引き分け判定",
    "rate_limited": "429（レート制限）", "rate_wait": "レート制限の待ち時間",
    "early_stop": "早期終了：上位{k}件が確定したため{sure}、予算{budget}判定のうち{used}判定で"
                  "終了しました（残り{unspent}判定は使っていません）。",
    "early_stop_sure": "（正しい見込み{share}）",
    "judge": "判定者",
    # 人によるラベルとの照合。
    "people_none": "人の判定とは照合していません。", "people_join": "",
    "people_agreed": "判定者は人の判定{compared}件のうち{agreed}件と一致しました。κ {kappa}"
                     "（95 %信頼区間 {low}–{high}）。",
    "people_agreed_no_kappa": "判定者は人の判定{compared}件のうち{agreed}件と一致しました"
                              "（ラベルが1種類のためκは定義されません）。",
    "people_no_verdict": "ラベル付きの組への呼び出しのうち{n}件は判定を返しませんでした。",
    "people_rho": "ラベル付きの項目の順位と人の順位との相関: スピアマンρ {rho}。",
    "people_tau": "人の点数との相関: ケンドールτ-b {tau}。",
    "people_order_anchored": "ランキングは、判定者の推定を人のラベルで補正したものです。",
    "people_order_judge": "ランキングは判定者自身のものです。",
    "disagreements": "判定者が人と食い違った判定",
    "disagreements_more": "{total}件のうち最初の{shown}件を示します（JSONレポートに全件あり）。",
    "pair": "組", "person": "人", "judge_said": "判定者", "shown_col": "提示順",
    "said_a": "前者が上", "said_b": "後者が上", "said_tie": "同等",
    "a_first": "前者を先に提示", "b_first": "後者を先に提示",
    "slot_bias": "順位付け判定が1位にした表示位置",
    "slot_bias_note": "順位付け判定では文章を毎回ランダムな順で示したため、偏りがなければどの"
                      "位置も同じ割合で1位になります（偏りなしの期待値）。区間がそれより上にある"
                      "位置は、示された場所のために選ばれやすくなっています。",
    "slot_col": "表示位置 / 文章数", "slot_first_col": "1位の回数 / 判定数",
    "slot_share_col": "割合", "slot_interval_col": "95 % 区間",
    "slot_expected_col": "偏りなしの期待値",
    "ranking_calls": "順位付け判定",
    "ranking_calls_note": "各判定では文章をこの順にA、B、C…と示しました。判定者の順位はその記号で、"
                          "上位から順に示します（同じ順位の文章は=で結んでいます）。",
    "ranking_calls_more": "{total}件のうち最初の{shown}件を示します（JSONレポートに全件あり）。",
    "texts_shown_col": "示した文章", "order_col": "判定者の順位", "no_order": "順位なし",
    "trust": "このランキングはどこまで確かか",
    "trust_note": "スコアは全判定に当てはめたBradley–Terryの対数強度です（0が平均的な項目。"
                  "差が1なら上位の項目が約73 %の判定で勝つ）。ひげは95 %区間、同順位の行は"
                  "「=」を付けて同じ帯で示します。",
    "forest_title": "上位{n}件のスコアと95 %区間",
    "forest_more": "図は全{total}件のうち上位{shown}件を示します。",
    "p_top_k": "上位{k}に入る確率", "top_k_rule": "上位{k} ↑",
    "score_axis": "スコア（対数強度。0が平均的な項目）",
    "warn_order": "提示順による判定の不一致が多すぎます：AB/BAの{pairs}組の{share}で順序を"
                  "入れ替えると勝者が変わり、判定が文章ではなく提示位置に従っています"
                  "（片側二項検定・有意水準{level}で、不一致は{limit}を超えています）。"
                  "1対戦の判定回数を増やす（{more}）、複数の判定者で審査する（{panel}）、"
                  "別の判定者に替える、などが有効です。",
    "warn_top_k": "上位{k}件が残りと分離できていません：上位{k}件のうち約{missing}件は本来"
                  "上位{k}に入らない可能性があります。判定を増やすと分離できます（例："
                  "判定数を倍にしたスイス式 {swiss}）。",
    "s_position": "{who}は判定のあった{calls}回のうち{share}で先に提示された文章を選びました。"
                  "同じくらい良い2つの文章なら、先に提示された方が勝つ確率は{equal}と推定されます"
                  "（95 %: {low}〜{high}、{basis}）。",
    "s_length_longer": "{who}は長い文章を好みました：対数文字数の1標準偏差あたり{beta}ロジット"
                       "（95 %信頼区間 {low}〜{high}）。",
    "s_length_shorter": "{who}は短い文章を好みました：対数文字数の1標準偏差あたり{beta}ロジット"
                        "（95 %信頼区間 {low}〜{high}）。",
    "s_length_none": "{who}に文章の長さへのはっきりした好みは見られません：対数文字数の"
                     "1標準偏差あたり{beta}ロジット（95 %信頼区間 {low}〜{high}）。",
    "s_length_people": "人がラベルを付けた組では：対数文字数の1標準偏差あたり{beta}ロジット"
                       "（95 %信頼区間 {low}〜{high}）。",
    "adjusted": "判定者の{covariates}への好みを除いた順位",
    "adjusted_note": "上のランキングの代わりではなく、並べて示します：各項目のスコアから、"
                     "判定者の{covariates}への好みで説明できる分（{effects}）を除いたものです。"
                     "その好みが正しいこともあり、人の判定と比べて初めて分かります。",
    "adjusted_effect": "{name} 1標準偏差あたり{beta}ロジット",
    "adjusted_score": "調整後スコア（95 %）", "raw_rank": "ランキングでの順位",
    "covariate_length": "長さ",
    "basis_swapped_pairs": "提示順で勝者が変わったAB/BAの{n}組から推定",
    "basis_model": "{n}回の判定から文章の強さと同時に推定",
    "few_pairs": "{n}組しかないため（{few}組未満）、この数値は不確かです。",
    "few_calls": "{n}回しかないため（{few}回未満）、この数値は不確かです。",
    "few_prompts": "共通の設問が{n}件しかないため（{few}件未満）、この数値は不確かです。",
    "sentence_gap": "",
    "few_none": "根拠が1件もないため、この数値は事前分布だけによるもので、参考になりません。",
    "few_mark": "* {few}件未満の判定または組に基づく数値で、不確かです。",
    "n_pairs": "{n}組", "n_calls": "{n}回",
    "who_one": "判定者", "who_panel": "判定者全体",
    "s_order": "AB/BAの{pairs}組のうち{share}で、提示順を入れ替えると勝者が変わりました。"
               "そのたびに対戦の判定が割れています（1対戦2判定なら引き分けとなり、両方の項目が"
               "1敗します）。",
    "s_order_none": "両方の提示順で判定された組がないため（1対戦1判定）、順序の一貫性は"
                    "測定していません。",
    "s_agree": "{a}と{b}は、両方が答えた{prompts}件の設問のうち{share}で同じ文章を選びました"
               "（Cohenのκ = {kappa}：1は完全一致、0は偶然の一致と同程度）。",
    "s_agree_none": "{a}と{b}が同じ設問に答えたことはありません：判定者{j}人なら "
                    "{advice} で全員が全対戦を両方の提示順で判定します。",
    "s_ties": "{n}件のうち{tied}件が他の項目と同順位で、最大の同順位グループは{largest}件です。",
    "s_no_ties": "同順位の項目はありません。",
    "s_top_k": "判定のあった{calls}回に当てはめたモデルによれば、上位{k}件には真の上位{k}件の"
               "うち平均{expected}件が含まれます（各項目の上位{k}確率の合計）。",
    "s_failed": "{calls}回のうち{failed}回の判定（{share}）は結論が得られず、どちらの勝ちにも"
                "していません。",
    "judges": "判定者", "number_col": "#", "calls_col": "判定数", "no_verdict_col": "判定なし",
    "tokens_col": "トークン 入力 / 出力", "cost_col": "コスト", "first_col": "先に提示した側の勝ち",
    "advantage_col": "先手の有利さ（95 %）", "disagree_col": "順序で判定が変化",
    "prob_title": "判定者の対数確率から読んだ、この判定でこの項目が勝つ確率",
    "s_soft": "判定のあった{calls}回のうち{soft}回（{share}）に、先に提示した文章が勝つ確率が"
              "付いていました（ソフト判定）。残りは通常の判定です。",
    "soft_used": "スコアの当てはめは、これらの確率を判定の結果として使いました。",
    "soft_unused": "この実行の当てはめは判定の勝敗だけを数えています（verdicts: hard）。",
    "s_brier": "同じ対戦を逆の提示順で判定した結果と照らすと（{pairs}回）、確率のBrierスコアは"
               "{brier}です（0が完全。常に50 %と答えると0.25）。",
    "s_brier_none": "両方の提示順で判定した対戦がないため、確率を結果と照らし合わせられません"
                    "でした。",
    "calibration": "判定者の確率の較正",
    "calibration_note": "ソフト判定を、先に提示した文章に判定者が付けた確率で分け、その文章が"
                        "逆の提示順の判定でも勝った割合と比べます。較正のとれた判定者なら2つの"
                        "列が一致します。",
    "stated_col": "付けた確率", "mean_stated_col": "平均", "observed_col": "実際の割合",
    "setting_verdicts": "判定の扱い",
    # Names of the run's settings, as listed under the title.
    "setting_provider": "プロバイダ", "setting_model": "モデル",
    "setting_elimination_count": "敗退までの敗数", "setting_comparison_rounds": "1対戦の判定回数",
    "setting_seed": "シード", "setting_ranking": "順位付け",
    "setting_strategy": "戦略", "setting_budget": "予算（判定数）", "setting_top_k": "上位K",
    "setting_stop_when_settled": "上位確定で停止", "setting_judges": "判定者",
    "setting_schedule": "スケジュール", "setting_ties": "引き分けを許可",
    "setting_prompt": "プロンプト", "setting_context": "コンテキスト", "setting_scale": "尺度",
    "setting_inverse": "逆の問い", "setting_repetitions": "繰り返し回数",
    "setting_prepass": "事前採点",
    "phases": "事前採点: {texts}件のテキストを単独で採点（採点できたのは{scored}件）、続いて"
              "スイス式の対戦{matches}回（呼び出し{calls}回）",
    "texts_scored": "単独で採点したテキスト",
    "scored_alone": "単独で採点（事前採点）",
}

LANGUAGES = {"en": EN, "ja": JA}


def words(lang: str | None) -> Mapping[str, str]:
    """The report's words in `lang` (English unless "ja")."""
    return LANGUAGES.get(lang or "en", EN)
