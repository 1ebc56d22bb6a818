"""How a stored run is shown: its row in `runs list`, its details in `runs show`, its JSON."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from llm_qualitative_sort.cli._inventory import RunSummary
from llm_qualitative_sort.reports._text import judge_name
from llm_qualitative_sort.results.events import plural
from llm_qualitative_sort.tournament import scores_alone, shown_settings

COLUMNS = ("RUN ID", "STARTED", "ITEMS", "SETTINGS", "STATE", "CALLS", "COST")


def list_row(s: RunSummary) -> tuple[str, ...]:
    """A run's cells in `runs list`, in the order of `COLUMNS`."""
    return (s.run_id, when(s.started), str(s.items), _settings_text(s.settings), s.state,
            str(s.calls), "—" if s.cost is None else f"{s.cost:.4f}")


def _settings_text(settings: dict[str, Any]) -> str:
    # A run started from Python keeps only its judge's identity (no command-line provider).
    judge = settings.get("provider") or (
        judge_name(settings["judge"]) if isinstance(settings.get("judge"), str) else "?")
    model = settings.get("model") or settings.get("chat_model")
    parts = [f"{judge}:{model}" if model else judge]
    if settings.get("strategy") == "swiss":
        parts += ["swiss", f"K={settings.get('comparison_rounds')}"]
        parts += [f"{name}={settings[name]}" for name in ("budget", "budget_tokens", "top_k")
                  if settings.get(name) is not None]
        if (settings.get("group_size") or 2) > 2:
            parts.append(f"groups={settings['group_size']}")
        if settings.get("stop_when_settled"):
            parts.append("stop-when-settled")
        if settings.get("prepass"):
            parts.append(f"prepass={settings['prepass']}")
        if settings.get("pairing") not in (None, "neighbours"):
            parts.append(f"pairing={settings['pairing']}")
    elif settings.get("strategy") == "pointwise":
        parts += ["pointwise", f"scale={_scale_text(settings.get('scale'))}",
                  f"repetitions={settings.get('repetitions') or 1}"]
        if settings.get("inverse"):
            parts.append("inverse")
    elif settings.get("strategy") == "labelled":
        parts += ["labelled", f"pairs={len(settings.get('pairs') or ())}"]
    else:
        parts += [f"N={settings.get('elimination_count')}",
                  f"K={settings.get('comparison_rounds')}"]
    if settings.get("ties"):
        parts.append("ties")
    if settings.get("verdicts") == "soft":
        parts.append("soft-verdicts")
    if settings.get("ranking") == "bradley_terry":
        parts.append("bt")
    return " ".join(parts)


def _scale_text(scale: Any) -> str:
    """A pointwise run's scale in a few characters: "1-4" (its labels' range)."""
    if isinstance(scale, list) and scale and all(isinstance(e, list) for e in scale):
        return f"{scale[0][0]}-{scale[-1][0]}"
    return str(scale) if scale else "1-4"


def _scale_shown(scale: Any) -> str:
    """A pointwise run's labels in full: "1 (useless), 2, 3 (good)" or "1-4"."""
    if isinstance(scale, list) and all(isinstance(e, list) and len(e) == 2 for e in scale):
        return ", ".join(f"{label} ({text})" if text else str(label) for label, text in scale)
    return _scale_text(scale)


def details(s: RunSummary, path: str) -> list[tuple[str, Any]]:
    """A run's `runs show` lines (name, value): counts, then every stored setting."""
    settings = shown_settings(s.settings)  # a Swiss run's N is not a setting of it
    rows: list[tuple[str, Any]] = [
        ("run id", s.run_id), ("state", s.state + (f" ({s.holder})" if s.holder else "")),
        ("started", when(s.started)), ("last saved", when(s.updated)), ("items", s.items),
        ("criteria", settings.pop("criteria", None)), ("rounds", s.rounds),
        *_played(s),
        ("calls", f"{s.calls} paid, {s.cache_hits} from cache, {s.failed_calls} without verdict"),
        ("tokens", f"{s.input_tokens} in, {s.output_tokens} out"),
        ("cost", "—" if s.cost is None else f"{s.cost:.4f}"), ("checkpoint", path),
    ]
    rows += [(name.replace("_", " "), _setting_text(name, value))
             for name, value in settings.items() if value not in (None, {}, [])]
    if s.state not in ("finished", "running"):
        rows.append(("resume with", f"llm-qualitative-sort sort --resume {s.run_id} "
                                    f"--checkpoint {path}"))
    return rows


def _played(s: RunSummary) -> list[tuple[str, Any]]:
    """The rows that count what was judged: texts scored alone apart from matches.

    A pointwise run plays no match; a text scored in several calls (its repetitions) counts
    once.
    """
    rows: list[tuple[str, Any]] = []
    if s.scorings:
        calls = "" if s.scorings == s.texts_scored else f" ({s.scorings} calls)"
        rows.append(("scored alone", f"{plural(s.texts_scored, 'text')}{calls}"))
    if (s.settings.get("group_size") or 2) > 2:  # each "match" is one call ranking a group
        rows.append(("ranking calls", s.matches - s.scorings))
    elif not scores_alone(s.settings.get("strategy")):
        rows.append(("matches", s.matches - s.scorings))
    return rows


def _setting_text(name: str, value: Any) -> Any:
    if name == "scale":
        return _scale_shown(value)
    if name == "pairs" and isinstance(value, list):  # a calibration's labelled pairs
        return plural(len(value), "labelled pair")
    if name == "elapsed_time" and isinstance(value, int | float):
        return f"{value:.1f} s"
    return _value_text(value)


def _value_text(value: Any) -> Any:
    """A setting as a reader writes it: a mapping as "name=value, …", a list comma-separated."""
    if isinstance(value, dict):
        return ", ".join(f"{name}={_value_text(v)}" for name, v in value.items()
                         if v is not None)
    if isinstance(value, list | tuple):
        return ", ".join(str(_value_text(v)) for v in value)
    return value


def as_json(s: RunSummary) -> dict[str, Any]:
    """A run as `runs list --json` and `runs show --json` print it."""
    return {"run_id": s.run_id, "started": _iso(s.started), "last_saved": _iso(s.updated),
            "state": s.state, "holder": s.holder, "items": s.items, "rounds": s.rounds,
            "matches": s.matches, "calls": s.calls, "cache_hits": s.cache_hits,
            "failed_calls": s.failed_calls, "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens, "cost": s.cost, "settings": s.settings}


def when(moment: datetime | None) -> str:
    """A moment in local time to the minute ("—" for none)."""
    return "—" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
