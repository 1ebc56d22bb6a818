"""Text as the HTML report shows it: display width, excerpts, direction isolation, language.

Widths are counted in terminal-style columns: East Asian wide and fullwidth characters take
two, combining marks none, everything else one. That is close to how a proportional
Latin font and a CJK font share a line, and far closer than counting characters.
"""

from __future__ import annotations

import unicodedata

from markupsafe import Markup

from llm_qualitative_sort.providers.registry import REGISTRY

ELLIPSIS = "…"


def char_width(char: str) -> int:
    """Columns one character takes (2 for East Asian wide/fullwidth, 0 for combining)."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns `text` takes.

    Example:
        >>> display_width("abc"), display_width("吾輩は猫")
        (3, 8)
    """
    return sum(char_width(c) for c in text)


def truncate(text: str, width: int) -> str:
    """`text` on one line, cut at the end with an ellipsis to fit `width` columns.

    Example:
        >>> truncate("吾輩は猫である。名前はまだ無い。", 10)
        '吾輩は猫…'
    """
    flat = " ".join(text.split())
    if display_width(flat) <= width:
        return flat
    kept, used = [], 0
    for char in flat:
        used += char_width(char)
        if used > width - 1:  # the ellipsis takes one column
            break
        kept.append(char)
    return "".join(kept).rstrip() + ELLIPSIS


def isolated(text: str, tag: str = "bdi") -> Markup:
    """`text` escaped and isolated, so its direction marks cannot reorder what surrounds it.

    A right-to-left override (U+202E) inside an item would otherwise flip how the rest of
    the line displays; `<bdi>` (and `dir="auto"`) keep each item's text to itself.

    The templates write `<bdi>` themselves; this is for the SVG drawn in code.

    Example:
        >>> isolated("a<b")
        Markup('<bdi>a&lt;b</bdi>')
    """
    if tag == "bdi":
        return Markup("<bdi>{}</bdi>").format(text)
    # .iso: unicode-bidi: isolate (SVG has no <bdi>)
    return Markup('<{0} class="iso">{1}</{0}>').format(Markup(tag), text)


def page_language(texts: list[str]) -> str:
    """The `lang` of a page whose content is `texts`: "ja" if any kana, "ko", "zh", else "en".

    The page's language picks the glyphs: Han characters of a page marked English may be
    drawn with a Chinese font. Kana only appear in Japanese, so they decide first.
    """
    found = {_script(c) for text in texts for c in text if ord(c) > 0x2E7F}
    for script in ("ja", "ko", "zh"):
        if script in found:
            return script
    return "en"


def _script(char: str) -> str:
    code = ord(char)
    if 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF or 0xFF66 <= code <= 0xFF9F:
        return "ja"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "ko"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF:
        return "zh"
    return ""


# Provider classes by the name the command line gives them (`--provider`).
_PROVIDER_NAMES = {spec.class_name: name for name, spec in REGISTRY.items()}


def judge_name(identity: str) -> str:
    """A judge's `model_identity` as a reader names it: provider and model, no internals.

    The identity keeps every setting that shapes a verdict (for cache keys); a reader needs
    the provider, the model and, for the mock, its seed. A panel lists its judges.

    Example:
        >>> judge_name("MockLLMProvider:seed=5:sd=3.33:bias=0.0:score=False")
        'mock seed=5'
        >>> judge_name("OpenAIProvider:gpt-5.1@https://proxy.example#prompt2")
        'openai gpt-5.1'
        >>> judge_name("PanelProvider[MockLLMProvider:seed=1:sd=3 | GoogleProvider:g-3]:seed=0")
        'panel of mock seed=1, google g-3'
    """
    if identity.startswith("PanelProvider[") and "]" in identity:
        members = identity[len("PanelProvider["): identity.rindex("]")].split(" | ")
        return "panel of " + ", ".join(judge_name(m) for m in members)
    kind, _, rest = identity.partition(":")
    name = _PROVIDER_NAMES.get(kind, kind)
    if kind == "MockLLMProvider":
        seed = next((p for p in rest.split(":") if p.startswith("seed=")), "")
        return f"{name} {seed}".strip()
    model = rest.split("@")[0].split("#")[0]
    return f"{name} {model}".strip() if model else name
