"""`llm-qualitative-sort calibrate`: judges and prompts tried on the pairs people labelled.

Its arguments are declared with the other commands' (`cli._parser`); `calibrate_command`
reads the items and labels, builds each `--judge` and `--prompt`, calls
`judge_choice.calibrate` and writes its table.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

# As for `sort`: the cache directory may come from the environment.
CACHE_VARIABLE = "LLM_QUALITATIVE_SORT_CACHE_DIR"
_SUFFIXES = {".json": "json", ".html": "html", ".htm": "html"}


def calibrate_command(args: argparse.Namespace) -> str:
    """Run `calibrate`; returns what to print (empty when written to `--output`).

    Raises:
        InputError, UsageError: Bad items, labels, judges, prompts or options; nothing is
            called.
        RunStoppedError: A judge's run stopped (calibrate again to go on).
    """
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    import asyncio

    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.cli._prepare import open_cache
    from llm_qualitative_sort.judge_choice import calibrate

    texts, ids = _items(args)
    kind = _output_kind(args)
    judges = _judges(args)
    found = asyncio.run(calibrate(
        texts, Path(args.human), ids=ids, judges=judges, criteria=args.criteria,
        prompts=_prompts(args), strategy=_strategy(args), ties=args.ties,
        cache=open_cache(args.cache_dir or os.environ.get(CACHE_VARIABLE)),
        checkpointer=_checkpoint(args), seed=args.seed,
        max_concurrent_requests=args.concurrency))
    written = _written(found, kind, args.words)
    if args.output:
        Path(args.output).write_text(written, encoding="utf-8")
        return ""
    return written


def _items(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.cli._inputs import Source, checked, read_records

    source = Source(args.input, None, args.field, args.column, args.id_field, args.id_column)
    records = checked(read_records(source), source.name, dedupe=False,
                      note=lambda text: print(text, file=sys.stderr))
    # A labels file names items by id as text ("3", not 3).
    return [r.text for r in records], [str(r.id) for r in records]


def _output_kind(args: argparse.Namespace) -> str:
    if args.output_format:
        return str(args.output_format)
    if args.output:
        return _SUFFIXES.get(Path(args.output).suffix.lower(), "text")
    return "text"


def _judges(args: argparse.Namespace) -> dict[str, Any]:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.cli._config import RunConfig
    from llm_qualitative_sort.cli._exits import UsageError
    from llm_qualitative_sort.cli._providers import make_provider
    from llm_qualitative_sort.providers.panel import parse_judge
    from llm_qualitative_sort.providers.registry import NAMED_PROVIDERS

    judges: dict[str, Any] = {}
    for index, spec in enumerate(args.judges):
        if spec in judges:
            raise UsageError(f"--judge {spec} is given twice")
        name, model = parse_judge(spec, NAMED_PROVIDERS)
        # Mock judges are seeded apart, so that two of them are two judges.
        config = RunConfig(provider=name, model=model, seed=args.seed + index,
                           base_url=args.base_url, timeout=args.timeout,
                           input_price_per_million=args.input_price_per_million,
                           output_price_per_million=args.output_price_per_million)
        judges[spec] = make_provider(config)
    return judges


def _prompts(args: argparse.Namespace) -> dict[str, Any] | None:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.cli._exits import UsageError
    from llm_qualitative_sort.cli._prompt import BUILTIN_PREFIX
    from llm_qualitative_sort.prompts.template import PromptTemplate

    if not args.prompts:
        return None
    kind = "pointwise" if args.asked_as == "pointwise" else "pairwise"
    prompts: dict[str, Any] = {}
    for given in args.prompts:
        if given in prompts:
            raise UsageError(f"--prompt {given} is given twice")
        try:
            prompts[given] = (PromptTemplate.builtin(given.removeprefix(BUILTIN_PREFIX), kind)
                              if given.startswith(BUILTIN_PREFIX)
                              else PromptTemplate.from_file(given))
        except OSError as exc:
            raise UsageError(f"--prompt {given}: cannot read it ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"--prompt {given}: not UTF-8 text ({exc.reason})") from None
    return prompts


def _strategy(args: argparse.Namespace) -> Any:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.cli._config import scale_value
    from llm_qualitative_sort.cli._exits import UsageError
    from llm_qualitative_sort.tournament.pointwise import Pointwise

    if args.asked_as != "pointwise":
        if args.scale is not None:
            raise UsageError("--scale is for --strategy pointwise")
        return "pairwise"
    return Pointwise() if args.scale is None else Pointwise(scale=scale_value(args.scale))


def _checkpoint(args: argparse.Namespace) -> Any:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.running.arguments import DEFAULT_CHECKPOINTER

    return args.checkpoint or DEFAULT_CHECKPOINTER


def _written(found: Any, kind: str, lang: str) -> str:
    # Loaded when the command runs: parsing must not load pydantic or LangGraph.
    from llm_qualitative_sort.judge_choice import choice_html, choice_json, text_table

    if kind == "json":
        return choice_json(found)
    if kind == "html":
        return choice_html(found, lang)
    return text_table(found, lang)
