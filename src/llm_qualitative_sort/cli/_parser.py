"""The command line's arguments.

Options of `sort` default to None, so that a value given on the command line can be told
from one that comes from the stored run, the environment or the config file. Parsing loads
neither pydantic nor LangGraph: `--help` and a usage error stay quick.
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Sequence
from typing import Any, NoReturn

from llm_qualitative_sort.cli._inputs import FORMATS
from llm_qualitative_sort.cli._terminal import one_line
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.providers.registry import NAMED_PROVIDERS, PROVIDER_NAMES

PROGRAM = "llm-qualitative-sort"
PROVIDERS = PROVIDER_NAMES
# What `--judge PROVIDER[:MODEL]` may name (a LangChain chat model needs its own options).
PANEL_PROVIDERS = NAMED_PROVIDERS
RANKINGS = ("wins", "bradley_terry", "judge")
# The schedules of `graph.schedules.SCHEDULES`, named here because importing that package
# loads LangGraph, which `--help` must not (a test keeps the two the same).
SCHEDULES = ("rounds", "pipelined")

EPILOG = """exit codes:
  0    done (the ranking, the dry run or the runs were printed)
  1    unexpected internal error (a bug: please report it, with --verbose output)
  2    usage or input error: bad option, unreadable or empty input, invalid items, unknown
       run id, provider not installed; nothing was run
  3    the run stopped (provider failure, exhausted retries); resume it with the command shown
  4    --detach: the round's batch is submitted and nothing waits; continue with the
       command shown
  5    another process holds the run; nothing was called (--wait SECONDS waits for it)
  129  stopped by SIGHUP (closed terminal or SSH session); resume with the command shown
  130  interrupted (Ctrl-C, SIGINT); resume it with the command shown
  141  the output was closed early (`| head`); the run itself finished and is kept
  143  stopped by SIGTERM (`timeout`, CI cancel, container stop); resume with the command shown

defaults come from flags, then the environment (LLM_QUALITATIVE_SORT_PROVIDER, _MODEL,
_BASE_URL, _CONCURRENCY, _CACHE_DIR, _CHECKPOINT), then ./llm-qualitative-sort.toml
(or --config FILE), then the built-in defaults.
"""


class _Version(argparse.Action):
    """`--version`, looked up only when asked (reading package metadata costs time)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> NoReturn:
        from importlib.metadata import version

        print(f"{PROGRAM} {version('llm-qualitative-sort')}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The parser for `llm-qualitative-sort`."""
    parser = _parser(PROGRAM, "Rank texts by a criterion with an LLM judge in a "
                     "multi-elimination tournament.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", default=None,
                        help="tracebacks on errors")
    common.add_argument("--config", metavar="FILE",
                        help="settings file (default: ./llm-qualitative-sort.toml if present)")
    common.add_argument("--checkpoint", metavar="PATH|URI",
                        help="SQLite file, or postgresql:// URI shared by several workers, "
                             "that keeps runs (default: the embedded file)")
    _add_sort(_sub(commands, "sort", common, "sort the items of a file or stdin"))
    demo = _sub(commands, "demo", common, "sort a bundled set of texts with the mock judge")
    demo.add_argument("--seed", type=int, default=7, help="seed of the run (default 7)")
    _add_report_options(demo)
    demo.add_argument("--progress", choices=("auto", "bar", "lines", "none"))
    _add_runs(_sub(commands, "runs", common, "list, show or delete stored runs"), common)
    _add_calibrate(_sub(commands, "calibrate", common, "try judges and prompts on the pairs "
                       "people labelled, and say which agrees best"), PANEL_PROVIDERS)
    report = _sub(commands, "report", common,
                  "write the report of a stored run (no judge is called)")
    report.add_argument("run_id", metavar="RUN_ID")
    _add_report_options(report, stored=True)
    report.add_argument("--ranking", choices=RANKINGS,
                        help="order by wins or Bradley-Terry strength (default: as run)")
    return parser


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    return _Parser(prog=prog, description=description, epilog=EPILOG,
                   formatter_class=argparse.RawDescriptionHelpFormatter)


class _Parser(argparse.ArgumentParser):
    """Reports an unknown option with the usage of the subcommand it was given to."""

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # noqa: D102
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            target = self._command_parser(parsed)
            options = [o for a in target._actions for o in a.option_strings]
            hints = {m for e in extras for m in difflib.get_close_matches(e.split("=")[0],
                                                                           options, n=1)}
            hint = f" (did you mean {', '.join(sorted(hints))}?)" if hints else ""
            target.error(f"unrecognized arguments: {' '.join(extras)}{hint}; "
                         f"see '{target.prog} --help'")
        return parsed

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error (made safe to print: it quotes the arguments)."""
        super().error(one_line(message, None))

    def _command_parser(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        target: argparse.ArgumentParser = self
        for dest in ("command", "runs_command"):
            for action in target._actions:
                if isinstance(action, argparse._SubParsersAction) and getattr(parsed, dest, None):
                    target = action.choices.get(getattr(parsed, dest), target)
        return target


def _sub(commands: Any, name: str, common: argparse.ArgumentParser,
         help_text: str) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = commands.add_parser(
        name, parents=[common], help=help_text, description=help_text, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return sub


def _add_report_options(parser: argparse.ArgumentParser, stored: bool = False) -> None:
    """The report's options; `stored`: for a stored run, whose own settings are the defaults."""
    parser.add_argument("--out", metavar="FILE", required=stored,
                        help="write a report: .json, .csv or .html")
    lang = "the run's own --lang, else English" if stored else "English"
    parser.add_argument("--lang", choices=("en", "ja"),
                        help=f"language of the HTML report's own words (default: {lang}; "
                        "the page's lang follows the items)")
    excel = "the run's own --excel/--no-excel, else on" if stored else "on"
    parser.add_argument("--excel", action=argparse.BooleanOptionalAction,
                        help="start a .csv report with a UTF-8 byte-order mark so that Excel "
                        f"reads it right (default: {excel})")
    parser.add_argument("--mkdir", action="store_true", default=None,
                        help="create the --out file's missing directories (without it, a "
                        "missing directory is an error: a typo must not make a new tree)")


def _add_sort(sort: argparse.ArgumentParser) -> None:
    sort.add_argument("input", nargs="?", help="file of items; stdin if absent or '-'")
    sort.add_argument("--format", choices=FORMATS, help="input format (default: by extension)")
    sort.add_argument("--field", help="the field holding the text, for .jsonl")
    sort.add_argument("--column", help="the column holding the text, for .csv (default: text)")
    sort.add_argument("--id-field", help="the field holding each item's id, for .jsonl "
                      "(default: the line number)")
    sort.add_argument("--id-column", help="the column holding each item's id, for .csv "
                      "(default: the line number)")
    sort.add_argument("--dedupe", action="store_true",
                      help="drop items that repeat an earlier one (default: refuse them)")
    sort.add_argument("--criteria", help="what makes one text better than another")
    sort.add_argument("--adjust", action="append", metavar="COVARIATE",
                      help="also rank with the judge's preference for COVARIATE taken out, "
                      "beside the ranking (repeat for several): 'length', or a numeric field "
                      "of every record; no extra call")
    sort.add_argument("--prompt", metavar="FILE",
                      help="the judge's prompt: a Jinja2 template file with a ---system--- "
                      "and a ---user--- section, or builtin:en / builtin:ja; it may show "
                      "a record's other keys as {{ fields_a.KEY }} and {{ fields_b.KEY }}")
    sort.add_argument("--context", metavar="FILE.json",
                      help="a JSON object the template reads as {{ context.KEY }}")
    sort.add_argument("--human", metavar="FILE",
                      help="people's labels to check the judge against: a CSV with the "
                      "header a,b,winner (winner A, B or tie) or id,score, or JSONL; items "
                      "named by the input's ids. The judge is also asked each labelled pair, "
                      "and the ranking is anchored by the labels (--ranking judge: not)")
    judge = sort.add_argument_group("judge")
    judge.add_argument("--provider", choices=PROVIDERS, help="default mock")
    judge.add_argument("--model", help="model name (openai, google, langchain)")
    judge.add_argument("--judge", dest="judges", action="append", metavar="PROVIDER[:MODEL]",
                       help="one judge of a panel (repeat: --judge openai:gpt-5.1 --judge "
                       "google:gemini-3.0); each call goes to one judge, both orders of a "
                       "pair to the same one; the other judge options apply to every judge")
    judge.add_argument("--base-url", help="endpoint override: proxy or compatible server")
    judge.add_argument("--chat-model", metavar="MODULE:CLASS",
                       help="LangChain chat model for --provider langchain, such as "
                       "langchain_openai:AzureChatOpenAI")
    judge.add_argument("--chat-model-arg", action="append", metavar="NAME=VALUE",
                       help="keyword argument of the chat model (repeat; VALUE is read as "
                       "JSON when it parses, else as text); keys come from the environment")
    judge.add_argument("--timeout", type=float, metavar="SECONDS",
                       help="per request (default 120)")
    judge.add_argument("--requests-per-second", type=float, metavar="RATE",
                       help="a hard cap on requests per second (by default the run finds "
                       "the provider's limit from its 429s and rate-limit headers)")
    judge.add_argument("--rate-wait-limit", type=float, metavar="SECONDS",
                       help="how long one call may wait, in total, for the provider's rate "
                       "limit; a longer wait stops the run (default 600)")
    judge.add_argument("--input-price-per-million", type=float, metavar="PRICE",
                       help="price of a million input tokens (shows the cost as it runs)")
    judge.add_argument("--output-price-per-million", type=float, metavar="PRICE",
                       help="price of a million output tokens")
    judge.add_argument("--mock-latency", type=float, metavar="SECONDS",
                       help="seconds each mock call waits (to watch progress)")
    judge.add_argument("--mock-tie-margin", type=float, metavar="SCORE",
                       help="with --ties: the mock ties when its noisy scores differ by less")
    judge.add_argument("--mock-logprobs", choices=("calibrated", "overconfident"),
                       help="the mock states probabilities as a server that sends "
                       "log-probabilities does: P(first wins) with each verdict, the labels' "
                       "probabilities with each score; to try --verdicts soft offline")
    batch = sort.add_argument_group("batch mode (openai, google)")
    batch.add_argument("--batch", action="store_const", const=True,
                       help="send each round as one provider batch: about half the price, "
                       "rounds take up to 24 h each")
    batch.add_argument("--detach", action="store_const", const=True,
                       help="with --batch: submit the round and exit; continue later")
    batch.add_argument("--batch-discount", type=float, metavar="SHARE",
                       help="share of the live price batch calls save, for costs (default 0.5)")
    batch.add_argument("--batch-poll", type=float, metavar="SECONDS",
                       help="first wait between batch status checks, growing to 10 min "
                       "(default 10)")
    tournament = sort.add_argument_group("tournament")
    tournament.add_argument("--strategy", choices=("elimination", "swiss", "pointwise"),
                            help="elimination (the default), swiss (better "
                            "rankings for the same number of calls) or pointwise (each "
                            "text scored alone on a labelled scale, one call per text)")
    tournament.add_argument("--schedule", choices=SCHEDULES,
                            help="rounds (the default: each round starts when the last one "
                            "ends; the result depends on the seed alone) or pipelined "
                            "(elimination, live calls: players are paired as soon as they "
                            "are free, so no request slot waits for a round's slowest call)")
    tournament.add_argument("--elimination-count", type=int, metavar="N",
                            help="losses that eliminate (default 2)")
    tournament.add_argument("--comparison-rounds", type=int, metavar="K",
                            help="LLM calls per match, even (default 2); swiss also 1 "
                                 "(its default)")
    tournament.add_argument("--budget", type=int, metavar="CALLS",
                            help="swiss: judgements to spend, cache hits included (default: "
                            "what elimination N=2 would make, 2·(2n−1))")
    tournament.add_argument("--budget-tokens", type=int, metavar="N",
                            help="swiss: input and output tokens to spend, beside --budget "
                            "(the run stops at whichever it reaches first; no round is "
                            "started that is expected to go past it)")
    tournament.add_argument("--top-k", type=int, metavar="K",
                            help="swiss: refine the top K with part of the budget")
    tournament.add_argument("--stop-when-settled", action="store_const", const=True,
                            help="swiss with --top-k: stop before the budget once the top K "
                            "are separated from the rest")
    tournament.add_argument("--prepass", choices=("pointwise", "pointwise-inverse"),
                            help="swiss: spend n calls of the budget first scoring every text "
                            "alone (1-4 scale, one parallel round; pointwise-inverse asks "
                            "the inverse question), then play Swiss from those scores")
    tournament.add_argument("--group-size", type=int, metavar="K",
                            help="swiss: texts per call: 2 (the default) compares two; 3-8 "
                            "asks each call for the order of K texts (a ranking call, one "
                            "judgement of the budget)")
    tournament.add_argument("--pairing", choices=("neighbours", "a-optimal"),
                            help="swiss: how each round chooses its pairs: neighbours (the "
                            "default, nearest unmet neighbour in strength) or a-optimal (the "
                            "pairs whose verdicts most shrink the strengths' uncertainty)")
    tournament.add_argument("--scale", metavar="LOW-HIGH|FILE",
                            help="pointwise: the labels, such as 0-5, or a JSON file "
                            '{"1": "useless", ...} of labels and descriptions (default: 1-4, '
                            "4 excellent ... 1 useless)")
    tournament.add_argument("--inverse", action="store_const", const=True,
                            help="pointwise: ask how far each text is from meeting the "
                            "criterion, and rank by the complement")
    tournament.add_argument("--repetitions", type=int, metavar="R",
                            help="pointwise: calls per text, their scores averaged (default 1)")
    tournament.add_argument("--ties", action="store_const", const=True,
                            help="let the judge answer that two texts are equally good (a tie "
                            "is half a win for each in the Bradley-Terry fit; elimination and "
                            "swiss)")
    tournament.add_argument("--verdicts", choices=("hard", "soft"),
                            help="soft: the Bradley-Terry fit takes the judge's probability "
                            "(from its log-probabilities) as each call's outcome where it "
                            "has one (default hard: the verdict alone; elimination and swiss)")
    tournament.add_argument("--concurrency", type=int,
                            help="LLM calls in flight at most (default 10)")
    tournament.add_argument("--seed", type=int,
                            help="fixes pairing (default: drawn, and printed at the start)")
    tournament.add_argument("--ranking", choices=RANKINGS,
                            help="order by wins or Bradley-Terry strength (default: wins for "
                            "elimination, Bradley-Terry for swiss; with --human, the judge's "
                            "fit anchored by the labels); judge: the strategy's own even then")
    tournament.add_argument("--cache-dir", metavar="DIR|URI",
                            help="reuse answers kept in DIR, or in a postgresql:// database")
    runs = sort.add_argument_group("runs")
    runs.add_argument("--run-id", help="name the run (default: a new random id)")
    runs.add_argument("--resume", metavar="RUN_ID",
                      help="continue a stopped run with its stored settings")
    runs.add_argument("--wait", type=float, metavar="SECONDS",
                      help="if another process holds the run, wait this long for it "
                      "(inf: as long as it takes; default: refuse at once, exit 5)")
    runs.add_argument("--dry-run", action="store_true",
                      help="check everything, print the expected matches, calls and cost; "
                      "call nothing")
    runs.add_argument("--price-per-call", type=float, metavar="PRICE",
                      help="price of one LLM call, for --dry-run's cost")
    runs.add_argument("--progress", choices=("auto", "bar", "lines", "none"),
                      help="a bar on a terminal, one line per round otherwise (default auto)")
    _add_report_options(sort)


def _add_calibrate(calibrate: argparse.ArgumentParser, providers: tuple[str, ...]) -> None:
    """The options of `calibrate`."""
    calibrate.add_argument("input", metavar="ITEMS",
                           help="file of items: .txt (one per line), .jsonl or .csv")
    calibrate.add_argument("--human", required=True, metavar="LABELS",
                           help="people's labels, .csv or .jsonl: verdicts (a,b,winner) or "
                           "scores (id,score) naming items by id")
    calibrate.add_argument("--judge", dest="judges", action="append", required=True,
                           metavar="PROVIDER[:MODEL]",
                           help=f"a judge to try (repeat); PROVIDER one of {', '.join(providers)}")
    calibrate.add_argument("--prompt", dest="prompts", action="append", metavar="FILE",
                           help="a prompt to try (repeat): a template file, or builtin:en / "
                           "builtin:ja (default: the built-in prompt)")
    calibrate.add_argument("--criteria", required=True,
                           help="what makes one text better than another")
    # Dests of their own: the config file's choices are read from flags named as settings.
    calibrate.add_argument("--strategy", dest="asked_as", choices=("pairwise", "pointwise"),
                           default="pairwise",
                           help="pairwise (each labelled pair asked in both orders, the "
                           "default) or pointwise (each labelled text scored alone)")
    calibrate.add_argument("--scale", metavar="LOW-HIGH|FILE",
                           help="pointwise: the labels (default 1-4)")
    calibrate.add_argument("--ties", action="store_true",
                           help="pairwise: let the judges answer that two texts are equally good")
    for flag, what in (("--field", "the field holding the text, for .jsonl"),
                       ("--column", "the column holding the text, for .csv"),
                       ("--id-field", "the field holding each item's id, for .jsonl"),
                       ("--id-column", "the column holding each item's id, for .csv")):
        calibrate.add_argument(flag, help=f"{what} (ids default to line numbers)"
                               if "id" in flag else what)
    calibrate.add_argument("--format", dest="output_format", choices=("text", "json", "html"),
                           help="text (default), json or html (default: by --output's "
                           "extension)")
    calibrate.add_argument("--output", metavar="FILE", help="write there instead of stdout")
    calibrate.add_argument("--lang", dest="words", choices=("en", "ja"), default="en",
                           help="language of the text table and the page")
    calibrate.add_argument("--cache-dir", metavar="DIR|URI",
                           help="reuse answers kept in DIR, or in a postgresql:// database")
    calibrate.add_argument("--base-url", help="endpoint override: proxy or compatible server")
    calibrate.add_argument("--timeout", type=float, metavar="SECONDS",
                           help="per request (default 120)")
    calibrate.add_argument("--input-price-per-million", type=float, metavar="PRICE",
                           help="price of a million input tokens (for the cost per call)")
    calibrate.add_argument("--output-price-per-million", type=float, metavar="PRICE",
                           help="price of a million output tokens")
    calibrate.add_argument("--concurrency", type=int, default=10,
                           help="LLM calls in flight at most (default 10)")
    calibrate.add_argument("--seed", type=int, default=0, help="seed of the runs (default 0)")


def _add_runs(runs: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    actions = runs.add_subparsers(dest="runs_command", required=True, metavar="ACTION")
    listing = _sub(actions, "list", common, "one line per run, newest first")
    listing.add_argument("--json", action="store_true", help="as JSON lines")
    listing.add_argument("--limit", type=int, metavar="N",
                         help="the newest N runs (default 20; 0 lists every run)")
    listing.add_argument("--status", choices=("running", "finished", "stopped"),
                         help="only runs in this state")
    listing.add_argument("--strategy", choices=("elimination", "swiss", "pointwise"),
                         help="only runs of this strategy")
    show = _sub(actions, "show", common, "everything about one run")
    show.add_argument("run_id", metavar="RUN_ID")
    show.add_argument("--json", action="store_true", help="as JSON")
    remove = _sub(actions, "rm", common, "delete runs and give their space back")
    remove.add_argument("run_ids", nargs="+", metavar="RUN_ID")
    prune = _sub(actions, "prune", common,
                 "delete finished runs last saved before a date, and give their space back")
    prune.add_argument("--before", required=True, metavar="DATE",
                       help="YYYY-MM-DD (or an ISO time); local time unless it says otherwise")
    prune.add_argument("--dry-run", action="store_true", help="only list what would go")


def chat_model_args(pairs: Sequence[str] | None) -> dict[str, Any]:
    """`NAME=VALUE` pairs as keyword arguments; a VALUE that parses as JSON is that value."""
    kwargs: dict[str, Any] = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        if not sep or not name.isidentifier():
            raise InputError(f"--chat-model-arg {pair!r}: expected NAME=VALUE")
        try:
            kwargs[name] = json.loads(text)
        except json.JSONDecodeError:
            kwargs[name] = text
    return kwargs
