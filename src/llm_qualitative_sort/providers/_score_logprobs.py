"""The label distribution of a pointwise answer, from the label token's log-probabilities.

The judge answers `{"reason": ..., "label": 3}`. The token that carries the label is the
one where the last "label" value begins; its alternatives that spell a label of the scale
(a digit, optionally quoted, optionally followed by the closing characters) give each
label's log-probability z_k, and the distribution is softmax(z) over the labels found
(`rating.scoring.label_distribution`). No label token, no label among its alternatives, or a
label's log-probability that is none (NaN, +inf; -inf for the token written): no
distribution, and the call counts as its label.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from llm_qualitative_sort.providers.logprobs import Token, usable_logprob, value_token
from llm_qualitative_sort.rating.scoring import Scale, label_distribution

_LABEL = re.compile(r'"label"\s*:\s*')
_PIECE = re.compile(r'"?(\d)"?[\s,}\]]*')


def score_logprobs(tokens: Sequence[Token], scale: Scale) -> dict[int, float] | None:
    """Each label's log-probability at the token that carries the label, or None.

    Example:
        >>> tokens = [Token('{"reason": "ok", "label": ', 0.0, {}),
        ...           Token("3", -0.4, {"3": -0.4, "4": -1.2, "x": -3.0}), Token("}", 0.0, {})]
        >>> score_logprobs(tokens, Scale.parse(None))
        {3: -0.4, 4: -1.2}
    """
    found = value_token(tokens, _LABEL)
    return None if found is None else _labels(*found, scale)


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


def _labels(token: Token, prefix: str, scale: Scale) -> dict[int, float] | None:
    options = dict(token.top)
    options.setdefault(token.text, token.logprob)
    found: dict[int, float] = {}
    for piece, logprob in options.items():
        match = _PIECE.fullmatch(piece[len(prefix):]) if piece.startswith(prefix) else None
        label = int(match.group(1)) if match else None
        if label is None or label not in scale.labels:
            continue
        if not usable_logprob(logprob, chosen=piece == token.text):
            return None  # no distribution rather than one against the label given
        if logprob == -math.inf:  # an alternative's probability 0
            continue
        if label in found:  # two spellings of one label ("3", "3}") add up
            high = max(found[label], logprob)
            logprob = high + math.log(math.exp(found[label] - high) + math.exp(logprob - high))
        found[label] = logprob
    return found or None
