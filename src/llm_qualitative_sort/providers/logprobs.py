"""Soft verdicts: the judge's probability that the first-shown text wins, from log-probs.

The judge answers a JSON object whose "winner" value ("A", "B" or "tie") is the verdict.
A server that returns log-probabilities (OpenAI's `logprobs` + `top_logprobs`, Gemini's
`responseLogprobs` + `logprobs`, llama.cpp's OpenAI-compatible server) lists, for every
generated token, the most likely tokens at that place. The token that carries the verdict
is the one where the winner's value begins; its alternatives that spell a label ("A", "B",
"tie", with or without the closing quote) give each label's log-probability z. The
probability is the softmax over the labels found, with a tie counting half a win:

    P(first wins) = (e^z_A + ½·e^z_tie) / (e^z_A + e^z_B + e^z_tie)

A label missing from the alternatives counts as nothing (the normalisation is over the
labels the server sent). No verdict token, no label among its alternatives, or a label's
log-probability that is none (NaN, +inf; -inf for the token written): no probability
(None), and the call is a hard verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LABELS = ("A", "B", "tie")
# Where the winner's value starts in the answer's text: the last `"winner": "`.
_WINNER = re.compile(r'"winner"\s*:\s*"')
# How many alternatives to ask for at each token (OpenAI allows 0..20, Gemini 1..20).
TOP_LOGPROBS = 5


@dataclass(frozen=True)
class Token:
    """One generated token and the most likely alternatives at its place (token → logprob)."""

    text: str
    logprob: float
    top: Mapping[str, float]


def label_of(piece: str) -> str | None:
    """The label a token's text spells (after the opening quote), or None.

    "A", 'A"', 'A"}', "tie", "t" or "ti" (the start of "tie", cut by the tokenizer) count;
    "Ab" or "AB" do not.

    Example:
        >>> [label_of(p) for p in ("A", 'B"', 'A"}', "tie", "ti", "Ab", " A", "")]
        ['A', 'B', 'A', 'tie', 'tie', None, None, None]
    """
    end = piece.find('"')
    body = piece if end < 0 else piece[:end]
    rest = "" if end < 0 else piece[end:]
    if rest and not re.fullmatch(r'"[\s,}\]]*', rest):
        return None
    if body in ("A", "B"):
        return body
    if body and "tie".startswith(body) and (body == "tie" or not rest):
        return "tie"
    return None


def label_logprobs(tokens: Sequence[Token]) -> dict[str, float] | None:
    """Each label's log-probability at the token that carries the verdict, or None.

    The verdict token is the one covering the first character of the last "winner" value
    in the text the tokens spell; the part of that token before the value (a quote, say)
    must begin each alternative that is read as a label.
    """
    found = value_token(tokens, _WINNER)
    return None if found is None else _labels(*found)


def value_token(tokens: Sequence[Token], key: re.Pattern[str]) -> tuple[Token, str] | None:
    """The token holding the last value `key` introduces, and its part before the value.

    The token covers the first character of that value; None when the tokens spell no such
    key.
    """
    text = "".join(t.text for t in tokens)
    found = list(key.finditer(text))
    if not found:
        return None
    start = found[-1].end()
    offset = 0
    for token in tokens:
        end = offset + len(token.text)
        if offset <= start < end:
            return token, text[offset:start]
        offset = end
    return None


def _labels(token: Token, prefix: str) -> dict[str, float] | None:
    found: dict[str, float] = {}
    options = dict(token.top)
    options.setdefault(token.text, token.logprob)
    for piece, logprob in options.items():
        label = label_of(piece[len(prefix):]) if piece.startswith(prefix) else None
        if label is None:
            continue
        if not usable_logprob(logprob, chosen=piece == token.text):
            return None
        if logprob > -math.inf:  # two spellings of one label ('A', 'A"') add up
            found[label] = _log_add(found[label], logprob) if label in found else logprob
    return found or None


def usable_logprob(logprob: float, *, chosen: bool) -> bool:
    """Whether a label's log-probability can be read; else the call is a hard verdict.

    NaN and +inf are no log-probability, and -inf for the token the judge wrote says it
    could not have written it: dropping any of them and renormalising the rest would give
    the probability to the other labels, against the verdict. -inf for an alternative is
    its probability, 0.

    Example:
        >>> [usable_logprob(v, chosen=True) for v in (-0.1, math.inf, math.nan, -math.inf)]
        [True, False, False, False]
        >>> usable_logprob(-math.inf, chosen=False)
        True
    """
    if math.isnan(logprob) or logprob == math.inf:
        return False
    return logprob > -math.inf or not chosen


def _log_add(x: float, y: float) -> float:
    high = max(x, y)
    return high + math.log(math.exp(x - high) + math.exp(y - high))


def first_wins(logprobs: Mapping[str, float]) -> float | None:
    """P(first-shown wins), a tie counting half: softmax over the labels given.

    Example:
        >>> round(first_wins({"A": math.log(0.6), "B": math.log(0.2)}), 6)
        0.75
        >>> round(first_wins({"A": math.log(0.5), "B": math.log(0.3), "tie": math.log(0.2)}), 6)
        0.6
    """
    values = {k: v for k, v in logprobs.items() if k in LABELS and math.isfinite(v)}
    if not values:
        return None
    high = max(values.values())
    weights = {k: math.exp(v - high) for k, v in values.items()}
    total = sum(weights.values())
    share = weights.get("A", 0.0) + 0.5 * weights.get("tie", 0.0)
    return min(max(share / total, 0.0), 1.0)


def openai_tokens(logprobs: Any) -> list[Token]:
    """The tokens of an OpenAI chat completion's `choices[0].logprobs` (a dict), if any."""
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    tokens: list[Token] = []
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, Mapping) or not isinstance(item.get("token"), str):
            return []
        top = {str(alt.get("token")): _number(alt.get("logprob"))
               for alt in item.get("top_logprobs") or [] if isinstance(alt, Mapping)}
        tokens.append(Token(item["token"], _number(item.get("logprob")), top))
    return tokens


def gemini_tokens(result: Any) -> list[Token]:
    """The tokens of a Gemini candidate's `logprobsResult` (a dict, camel or snake case)."""
    if not isinstance(result, Mapping):
        return []
    chosen = _field(result, "chosenCandidates", "chosen_candidates") or []
    tops = _field(result, "topCandidates", "top_candidates") or []
    tokens: list[Token] = []
    for index, pick in enumerate(chosen if isinstance(chosen, list) else []):
        if not isinstance(pick, Mapping) or not isinstance(pick.get("token"), str):
            return []
        alternatives = tops[index] if isinstance(tops, list) and index < len(tops) else {}
        listed = _field(alternatives, "candidates") if isinstance(alternatives, Mapping) else []
        top = {str(alt.get("token")): _number(_field(alt, "logProbability", "log_probability"))
               for alt in listed or [] if isinstance(alt, Mapping)}
        logprob = _number(_field(pick, "logProbability", "log_probability"))
        tokens.append(Token(pick["token"], logprob, top))
    return tokens


def verdict_probability(tokens: Sequence[Token]) -> tuple[float | None, dict[str, float]]:
    """The first-shown text's probability and the label log-probabilities it came from."""
    found = label_logprobs(tokens) if tokens else None
    if not found:
        return None, {}
    return first_wins(found), {k: round(v, 6) for k, v in found.items()}


def _field(data: Any, *names: str) -> Any:
    for name in names:
        if isinstance(data, Mapping) and name in data:
            return data[name]
    return None


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else -math.inf
