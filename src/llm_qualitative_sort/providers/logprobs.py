"""Log-probabilities: asking a judge for them, and what is read from them.

A comparison's soft verdict is the judge's probability that the first-shown text wins; a
score's label distribution is its probability of each label of the scale. Both are read
from the log-probabilities of the answer's tokens, by one rule.

For a verdict, the judge answers a JSON object whose "winner" value ("A", "B" or "tie") is
the verdict. A server that returns log-probabilities (OpenAI's `logprobs` + `top_logprobs`,
Gemini's `responseLogprobs` + `logprobs`, llama.cpp's OpenAI-compatible server) lists, for
every generated token, the most likely tokens at that place. The token that carries the
verdict is the one where the winner's value begins; its alternatives that spell a label
("A", "B", "tie", with or without the closing quote) give each label's log-probability z.
The probability is the softmax over the labels found, with a tie counting half a win:

    P(first wins) = (e^z_A + ½·e^z_tie) / (e^z_A + e^z_B + e^z_tie)

A label missing from the alternatives counts as nothing (the normalisation is over the
labels the server sent). No verdict token, no label among its alternatives, or a label's
log-probability that is none (NaN, +inf; -inf for the token written): no probability
(None), and the call is a hard verdict.

A pointwise answer (`{"reason": ..., "label": 3}`) is read the same way at the token where
the last "label" value begins: its alternatives that spell a label of the scale (a digit,
optionally quoted, optionally followed by the closing characters) give each label's
log-probability, and the label distribution is their softmax
(`rating.scoring.label_distribution`); the same cases give no distribution, and the call
counts as its label.

The live LangChain judge asks for log-probabilities where the client can (`ChatOpenAI`:
`logprobs=True` and `top_logprobs`; a Gemini model built by `GoogleProvider`:
`response_logprobs` and `logprobs` in its generation config), and a batch asks in each
request. A server that refuses them (Gemini answers 400 "Logprobs is not enabled for
models/…"; OpenAI's reasoning models refuse `logprobs` likewise) is asked again at once
without them, and the provider stops asking for that model; the answer then has no
probability, a hard verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from llm_qualitative_sort.rating.scoring import Scale, label_distribution

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage

LABELS = ("A", "B", "tie")
# Where the winner's value starts in the answer's text: the last `"winner": "`.
_WINNER = re.compile(r'"winner"\s*:\s*"')
_LABEL = re.compile(r'"label"\s*:\s*')
_SCALE_PIECE = re.compile(r'"?(\d)"?[\s,}\]]*')
# How many alternatives to ask for at each token (OpenAI allows 0..20, Gemini 1..20).
TOP_LOGPROBS = 5
# The response metadata keys that carry log-probabilities (OpenAI's; Gemini's, as
# `GoogleProvider`'s chat model stores them): read, then dropped from the stored answer.
LOGPROB_KEYS = ("logprobs", "logprobs_result")
Label = TypeVar("Label", str, int)


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
    return None if found is None else _labels(*found, label_of)


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


def _labels(token: Token, prefix: str, label: Callable[[str], Label | None]
            ) -> dict[Label, float] | None:
    """Each label's log-probability among the token's alternatives, or None.

    `label` names the label a piece after `prefix` spells (None: none); a label that
    cannot be read makes the whole token unreadable rather than one against the answer.
    """
    found: dict[Label, float] = {}
    options = dict(token.top)
    options.setdefault(token.text, token.logprob)
    for piece, logprob in options.items():
        name = label(piece[len(prefix):]) if piece.startswith(prefix) else None
        if name is None:
            continue
        if not usable_logprob(logprob, chosen=piece == token.text):
            return None
        if logprob > -math.inf:  # two spellings of one label ('A', 'A"') add up
            found[name] = _log_add(found[name], logprob) if name in found else logprob
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


def score_logprobs(tokens: Sequence[Token], scale: Scale) -> dict[int, float] | None:
    """Each label's log-probability at the token that carries the label, or None.

    Example:
        >>> tokens = [Token('{"reason": "ok", "label": ', 0.0, {}),
        ...           Token("3", -0.4, {"3": -0.4, "4": -1.2, "x": -3.0}), Token("}", 0.0, {})]
        >>> score_logprobs(tokens, Scale.parse(None))
        {3: -0.4, 4: -1.2}
    """
    found = value_token(tokens, _LABEL)
    if found is None:
        return None

    def on_scale(piece: str) -> int | None:
        match = _SCALE_PIECE.fullmatch(piece)
        label = int(match.group(1)) if match else None
        return label if label is not None and label in scale.labels else None

    return _labels(*found, on_scale)


def score_distribution(tokens: Sequence[Token], scale: Scale
                       ) -> tuple[dict[int, float] | None, dict[str, float]]:
    """The label distribution of an answer, and the label log-probabilities it came from.

    The live and the batch calls read an answer's tokens with this one rule; (None, {})
    when the tokens carry no label of the scale.

    Example:
        >>> tokens = [Token('{"reason": "ok", "label": ', 0.0, {}),
        ...           Token("3", math.log(0.6), {"3": math.log(0.6), "4": math.log(0.2)})]
        >>> score_distribution(tokens, Scale.parse(None))[0]
        {3: 0.75, 4: 0.25}
    """
    found = score_logprobs(tokens, scale) if tokens else None
    if not found:
        return None, {}
    return label_distribution(found), {str(k): round(v, 6) for k, v in found.items()}


def with_logprobs(chat: BaseChatModel) -> BaseChatModel | None:
    """A copy of `chat` that asks for log-probabilities, or None when it cannot ask."""
    if type(chat).__module__.startswith("langchain_openai"):
        return chat.model_copy(update={"logprobs": True, "top_logprobs": TOP_LOGPROBS})
    if "response_logprobs" in type(chat).model_fields:
        return chat.model_copy(update={"response_logprobs": True})
    return None


def refuses_logprobs(status: object, message: str) -> bool:
    """Whether a failure's status and message say the server refused log-probabilities.

    The live calls and the batches (a request, a batch, its creation) read refusals alike.

    Example:
        >>> refuses_logprobs(400, "Logprobs is not enabled for models/gemini-x")
        True
        >>> refuses_logprobs(400, "response_format json_schema is not supported")
        False
    """
    return status in (400, 422) and "logprob" in message.lower()


def message_tokens(message: AIMessage) -> list[Token]:
    """The generated tokens with their alternatives, as a chat message's metadata holds them."""
    metadata = message.response_metadata or {}
    if isinstance(metadata.get("logprobs"), dict):
        return openai_tokens(metadata["logprobs"])
    return gemini_tokens(metadata.get("logprobs_result"))


def without_logprobs(metadata: dict[str, Any]) -> dict[str, Any]:
    """Response metadata without the (bulky) per-token log-probabilities."""
    return {k: v for k, v in metadata.items() if k not in LOGPROB_KEYS and k != "headers"}
