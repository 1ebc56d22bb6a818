"""The command line's arguments."""

from __future__ import annotations

import argparse

from llm_qualitative_sort.cli._config import PROGRAM
from llm_qualitative_sort.cli._inputs import FORMATS
from llm_qualitative_sort.cli._providers import PROVIDERS

EPILOG = """exit codes:
  0    the ranking was printed (or the dry run was)
  1    unexpected internal error (a bug: please report it, with --verbose output)
  2    usage or input error: bad option, unreadable input, invalid items, unknown run id,
       provider not installed; nothing was run
  3    the run stopped (provider failure, exhausted retries); resume it with the command shown
  4    --detach: the round's batch is submitted and nothing waits; continue with the command shown
  130  interrupted (Ctrl-C); resume it with the command shown
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser for `llm-qualitative-sort`."""
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Rank texts by a criterion with an LLM judge in a multi-elimination "
        "tournament.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", help="tracebacks on errors")
    common.add_argument("--progress", choices=("auto", "bar", "lines", "none"), default="auto",
                        help="a bar on a terminal, one line per round otherwise (default auto)")
    common.add_argument("--checkpoint", metavar="PATH",
                        help="SQLite file that keeps runs (default: the embedded one)")
    common.add_argument("--out", metavar="FILE", help="write a report: .json, .csv or .html")
    _add_sort(commands.add_parser(
        "sort", parents=[common], help="sort the items of a file or stdin",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter))
    demo = commands.add_parser("demo", parents=[common],
                               help="sort a bundled set of texts with the mock judge")
    demo.add_argument("--seed", type=int, default=7, help="seed of the run (default 7)")
    return parser


def _add_sort(sort: argparse.ArgumentParser) -> None:
    sort.add_argument("input", nargs="?", help="file of items; stdin if absent or '-'")
    sort.add_argument("--format", choices=FORMATS, help="input format (default: by extension)")
    sort.add_argument("--field", help="the field holding the text, for .jsonl")
    sort.add_argument("--column", help="the column holding the text, for .csv")
    sort.add_argument("--criteria", help="what makes one text better than another")
    judge = sort.add_argument_group("judge")
    judge.add_argument("--provider", choices=PROVIDERS, default="mock", help="default mock")
    judge.add_argument("--model", help="model name (openai, google)")
    judge.add_argument("--base-url", help="endpoint override: proxy or compatible server")
    judge.add_argument("--mock-latency", type=float, default=0.0, metavar="SECONDS",
                       help="seconds each mock call waits (to watch progress)")
    batch = sort.add_argument_group("batch mode (openai, google)")
    batch.add_argument("--batch", action="store_true",
                       help="send each round as one provider batch: about half the price, "
                       "rounds take up to 24 h each")
    batch.add_argument("--detach", action="store_true",
                       help="with --batch: submit the round and exit; continue later")
    batch.add_argument("--batch-discount", type=float, default=0.5, metavar="SHARE",
                       help="share of the live price batch calls save, for costs (default 0.5)")
    batch.add_argument("--batch-poll", type=float, default=10.0, metavar="SECONDS",
                       help="first wait between batch status checks, growing to 10 min "
                       "(default 10)")
    tournament = sort.add_argument_group("tournament")
    tournament.add_argument("--elimination-count", type=int, default=2, metavar="N",
                            help="losses that eliminate (default 2)")
    tournament.add_argument("--comparison-rounds", type=int, default=2, metavar="K",
                            help="LLM calls per match, even (default 2)")
    tournament.add_argument("--concurrency", type=int, default=10,
                            help="LLM calls in flight at most (default 10)")
    tournament.add_argument("--seed", type=int, help="fixes pairing (default: drawn, printed)")
    tournament.add_argument("--cache-dir", metavar="DIR", help="reuse answers kept in DIR")
    runs = sort.add_argument_group("runs")
    runs.add_argument("--run-id", help="name the run (default: a new random id)")
    runs.add_argument("--resume", metavar="RUN_ID", help="continue a stopped run")
    runs.add_argument("--dry-run", action="store_true",
                      help="print the expected matches, calls and cost; call nothing")
    runs.add_argument("--price-per-call", type=float, metavar="PRICE",
                      help="price of one LLM call, for --dry-run's cost")
