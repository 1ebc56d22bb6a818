"""Reports as the command line writes them: settings, ids, language and Excel's BOM."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_qualitative_sort.errors import InputError

if TYPE_CHECKING:
    from llm_qualitative_sort.cli._config import RunConfig
    from llm_qualitative_sort.models import SortResult

REPORT_FORMATS = (".json", ".csv", ".html")


class ReportPathError(InputError):
    """The report cannot be written where asked; found before any call."""


def check_report_path(path: str, *, probe: bool = True, make_dirs: bool = False) -> None:
    """Fail now, not after a paid run, if a report cannot be written at `path`.

    Checks the extension, that no directory stands in the way, that the file's directory
    exists (unless `make_dirs`: `--mkdir` creates it when the report is written), and
    (with `probe`) that a file can be created beside it — permissions, a read-only or full
    file system.
    """
    target = Path(path)
    if target.suffix.lower() not in REPORT_FORMATS:
        raise ReportPathError(f"cannot tell the report format of {path!r}: use one of "
                              + ", ".join(REPORT_FORMATS))
    if target.is_dir():
        raise ReportPathError(f"--out {path}: is a directory")
    parent = target.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ReportPathError(f"--out {path}: {parent} is a file, not a directory")
    if parent != target.parent and not make_dirs:
        # Not made silently: a typo in a directory name would start a new tree.
        missing = target.parent
        while missing.parent != parent:
            missing = missing.parent
        raise ReportPathError(f"--out {path}: the directory {missing} does not exist "
                              "(create it, or add --mkdir to have it created)")
    if target.exists() and not os.access(target, os.W_OK):
        raise ReportPathError(f"--out {path}: the file is not writable")
    if probe and parent == target.parent:
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{target.name}.", delete=True):
                pass
        except OSError as exc:
            raise ReportPathError(f"--out {path}: cannot write in {parent} ({exc})") from exc
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise ReportPathError(f"--out {path}: cannot write in {parent}")


def excel_bom(path: str, excel: bool | None) -> bool:
    """Whether a report gets Excel's byte-order mark: .csv files, unless turned off."""
    return Path(path).suffix.lower() == ".csv" and excel is not False


def write_cli_report(result: SortResult, config: RunConfig, ids: Sequence[Any],
                     items: Sequence[str] | None = None) -> Path:
    """Write the report `config.out` names, with the items' ids."""
    from llm_qualitative_sort.reports import write_report

    assert config.out is not None
    texts = items if items is not None else [i for _, group in result.rankings for i in group]
    settings = config.settings()
    if result.prompt:  # the template's name and digest, not only the path it was read from
        settings["prompt"] = result.prompt
    return write_report(result, config.out, settings, ids=ids_by_text(texts, ids),
                        lang=config.lang, excel=excel_bom(config.out, config.excel),
                        front_end="cli")


def ids_by_text(texts: Sequence[str], ids: Sequence[Any]) -> dict[str, Any]:
    """Each text's id, from ids listed in the order of the sorted texts."""
    ordered = sorted(texts)
    return dict(zip(ordered, ids, strict=True)) if len(ids) == len(ordered) else {}
