r"""Strings from outside (texts, ids, paths, reasons, a provider's words) made safe to print.

An item text, a run id or a judge's message may hold characters a terminal obeys rather
than shows: ESC and BEL start sequences that clear the screen, set the window title or plant
a hyperlink whose shown text is not its target; C1 controls (0x80-0x9f) start the same
sequences on terminals that read 8-bit controls; a bidirectional embedding, override or
isolate shows the rest of a line in another order than it is read. Every such character is
written out as a visible escape (`\x1b`, `\u202e`), so the reader sees that it is there.

Example:
    >>> one_line("a\x1b]8;;http://x\x07link\x1b]8;;\x07\nb")
    'a\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07 b'
"""

from __future__ import annotations

import json
import re
from typing import Any

SHOWN_CHARS = 150

# C0 controls, DEL, C1 controls; the bidi embeddings and overrides (U+202A-U+202E) and
# isolates (U+2066-U+2069). The bidi marks (LRM, RLM, ALM) stay: right-to-left text needs
# them, and they only move the neutral characters beside them.
_ABOVE_C0 = "\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f{_ABOVE_C0}]")
# JSON escapes C0 controls in its strings itself, and its indentation is made of LFs.
_UNSAFE_IN_JSON = re.compile(f"[{_ABOVE_C0}]")


def escaped(text: str) -> str:
    r"""`text` with each character a terminal would obey written out (`\x1b`, `\u202e`).

    Line breaks are escaped too (`\n`): see `one_line` to turn white space into spaces.
    """
    return _UNSAFE.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def one_line(text: str, chars: int | None = SHOWN_CHARS) -> str:
    """`text` on one line, safe to print: white space runs become one space, controls escapes.

    Cut to `chars` characters with "…" when longer (`None`: never cut).
    """
    flat = " ".join(text.split())
    if chars is not None and len(flat) > chars:
        flat = flat[: chars - 1] + "…"
    return escaped(flat)


def lines(text: str) -> str:
    """`text` (several lines of our own, such as a traceback) with every control but LF escaped.

    The indentation is kept; a CR, which would let a line overwrite the one before, is not.
    """
    return "\n".join(escaped(line) for line in text.split("\n"))


def json_text(value: Any, indent: int | None = None) -> str:
    """`value` as JSON, with the characters `escaped` names written as JSON escapes.

    JSON escapes C0 controls itself but lets DEL, C1 controls and bidi overrides through.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _UNSAFE_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
