"""Choosing a judge and a prompt: each asked the pairs people labelled, compared side by side.

`calibrate` runs every judge × prompt over the labelled pairs (or texts) and returns a
`JudgeChoice`: agreement and κ with the people, the lean toward the first-shown text, the
preference for longer texts, tokens and cost per call, best first, and which to choose.
`text_table`, `choice_json` and `choice_html` write it out.

Not to be confused with `results.calibration`, which checks a judge's stated probabilities
(soft verdicts) within one run.
"""

from llm_qualitative_sort.judge_choice.output import choice_html, choice_json, text_table
from llm_qualitative_sort.judge_choice.result import RULE, JudgeChoice, JudgeTrial
from llm_qualitative_sort.judge_choice.trial import calibrate

__all__ = ["RULE", "JudgeChoice", "JudgeTrial", "calibrate", "choice_html", "choice_json",
           "text_table"]
