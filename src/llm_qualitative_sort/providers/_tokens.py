"""How many tokens one call takes, estimated from the texts' lengths (no tokenizer).

The dry run prints it per call, and a judge whose provider states a tokens-per-minute
limit paces its calls by it (scaled by what the calls really used, once they answer).
"""

from __future__ import annotations

import functools

CHARS_PER_TOKEN = 4  # English prose in the common tokenizers; other scripts take more
ANSWER_TOKENS = 150  # one to three sentences of reasoning and the verdict


@functools.cache
def _prompt_chars() -> int:
    """Characters of the built-in prompt around the texts (fences, instructions).

    Always the built-in prompt's, even when first asked inside a run with a template of
    its own (whose fields an empty text would not have).
    """
    from llm_qualitative_sort.prompts._comparison import builtin_messages

    return sum(len(str(message.content)) for message in builtin_messages("", "", ""))


def call_tokens(first: str, second: str, criteria: str) -> int:
    """Tokens of one call: the prompt with both texts, and the answer.

    Example:
        >>> call_tokens("a" * 400, "b" * 400, "clarity") > call_tokens("a", "b", "clarity")
        True
    """
    chars = _prompt_chars() + len(first) + len(second) + len(criteria)
    return chars // CHARS_PER_TOKEN + ANSWER_TOKENS


def mean_call_tokens(texts: list[str], criteria: str, *, alone: bool = False,
                     shown: int = 2) -> int:
    """Tokens of a call between two texts of the mean length (the dry run's figure).

    `alone`: a call that scores one text alone (a pointwise run), which shows one text.
    `shown`: texts per call (a ranking call of Swiss's `group_size` shows 3 to 8).

    Example:
        >>> texts = ["a" * 2000] * 3
        >>> mean_call_tokens(texts, "c", alone=True) < mean_call_tokens(texts, "c")
        True
        >>> mean_call_tokens(texts, "c", shown=4) > mean_call_tokens(texts, "c")
        True
    """
    if not texts:
        return call_tokens("", "", criteria)
    mean = sum(len(text) for text in texts) // len(texts)
    if alone:
        return call_tokens("x" * mean, "", criteria)
    return call_tokens("x" * mean, "x" * (mean * (shown - 1)), criteria)
