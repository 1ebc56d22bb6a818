"""The JSON report: everything in a `SortResult`, under a versioned schema."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from llm_qualitative_sort.audit import (
    Calibration,
    CovariateEffect,
    JudgeAgreement,
    JudgeAudit,
    OrderConsistency,
    PositionBias,
    ReliabilityBin,
    SlotShare,
)
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.models import EarlyStop, SortResult, Statistics
from llm_qualitative_sort.reports._adjusted import adjusted_from_json, adjusted_json, length_json
from llm_qualitative_sort.reports._people import people_json
from llm_qualitative_sort.reports._pointwise import item_from_json, item_json, pointwise_json
from llm_qualitative_sort.reports._standings import Standing, standings
from llm_qualitative_sort.reports._uncertainty import (
    ItemUncertainty,
    method_of,
    report_top_k,
    uncertainty,
)
from llm_qualitative_sort.results.phases import phases
from llm_qualitative_sort.verdicts import MatchResult, RankingCall, RoundResult

SCHEMA = "llm-qualitative-sort/result"
# Bump on any change that could break a reader; adding keys is not such a change.
SCHEMA_VERSION = 1


def to_json_dict(
    result: SortResult,
    settings: Mapping[str, Any] | None = None,
    ids: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report as plain JSON data.

    Each standing carries the item's Bradley–Terry `score`, its 95 % `interval` and its
    `top_k_probability`, for the K named in `uncertainty` (the run's `top_k` from
    `settings`, else 10; half the items below 20).

    Args:
        result: What to report.
        settings: How the run was made (criteria, elimination count, ...), stored as given.
        ids: Each item's id in the input; each standing then carries its `id`.

    Example:
        >>> from llm_qualitative_sort import SortResult, Statistics
        >>> to_json_dict(SortResult([(1, ["x"])], [], Statistics(0, 0, 0, 0.0)))["rankings"]
        [{'rank': 1, 'items': ['x']}]
    """
    table = standings(result)
    k = report_top_k(settings, len(table))
    figures = uncertainty(result, k)
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "run_id": result.run_id,
        # The run's strategy, as the result knows it, unless the settings given name one.
        "settings": ({"strategy": result.strategy} if result.strategy else {}) | dict(
            settings or {}),
        "rankings": [{"rank": rank, "items": list(group)} for rank, group in result.rankings],
        "uncertainty": {"level": 0.95, "top_k": k, "method": method_of(result)},
        "standings": [_standing(s, ids, figures.get(s.item)) for s in table],
        "match_history": [asdict(match) for match in result.match_history],
        # With the paid tokens per item ranked, which reading back leaves out (derived).
        "statistics": {**asdict(result.statistics),
                       "tokens_per_text": round(result.tokens_per_text, 1)},
        # The audit's estimate of the judge's preference for longer texts (None: untold).
        "length_preference": length_json(result),
        # The order with covariates taken out, when the run was asked to `adjust`.
        **({"adjusted": adjusted_json(result.adjusted)} if result.adjusted else {}),
        # A pointwise run: the labels' spread, each item's calls, labels and reasons.
        **({"pointwise": pointwise_json(result)} if result.pointwise else {}),
        # A Swiss run with a pre-pass: each text's score alone, in the order asked; then
        # the calls of each phase.
        **({"prepass": [item_json(s) for s in result.prepass]} if result.prepass else {}),
        **({"phases": found} if (found := phases(result)) is not None else {}),
        # Which order `rankings` holds; a run checked against people: how far they agree.
        "order": result.order,
        **({"human": people_json(result)} if result.agreement is not None else {}),
        # A Swiss run of ranking calls: each call's texts as shown, its order and reasoning.
        **({"ranking_calls": [asdict(call) for call in result.ranking_calls]}
           if result.ranking_calls else {}),
    }


def _standing(
    s: Standing, ids: Mapping[str, Any] | None, figures: ItemUncertainty | None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"rank": s.rank}
    if ids:
        entry["id"] = ids.get(s.item)
    entry.update(item=s.item, wins=s.wins, losses=s.losses)
    if figures is not None:
        entry.update(score=figures.score, interval=[figures.low, figures.high],
                     top_k_probability=figures.top_k)
    return entry


def from_json_dict(data: Mapping[str, Any]) -> SortResult:
    """Rebuild the `SortResult` of a JSON report.

    A report written before a pre-pass's scores had an entry of their own listed each as a
    one-call match of the text with itself, without its label: those entries are left out
    of `match_history` (they were never matches), and the report's statistics, which
    count their calls, are kept as written.

    Raises:
        ValueError: The data is not a report of a schema version this code reads.
    """
    if data.get("schema") != SCHEMA or data.get("schema_version") != SCHEMA_VERSION:
        raise InputError(
            f"not a version-{SCHEMA_VERSION} llm-qualitative-sort report: "
            f"schema={data.get('schema')!r}, version={data.get('schema_version')!r}"
        )
    result = SortResult(
        rankings=[(entry["rank"], list(entry["items"])) for entry in data["rankings"]],
        match_history=[_match(entry) for entry in data["match_history"]
                       if entry["item_a"] != entry["item_b"]],
        statistics=statistics_from_dict(data["statistics"]),
        run_id=data["run_id"],
        order=data.get("order", "judge"),
        human=(data.get("human") or {}).get("labels") or "",
        adjusted=adjusted_from_json(data["adjusted"]) if data.get("adjusted") else None,
        ranking_calls=tuple(_ranking_call(entry) for entry in data.get("ranking_calls", ())),
        prepass=tuple(item_from_json(entry) for entry in data.get("prepass", ())),
        strategy=str((data.get("settings") or {}).get("strategy") or ""),
    )
    _restore_uncertainty(result, data)
    if "length_preference" in data:  # as the report gave it, not fitted again
        found = data["length_preference"]
        result.__dict__["length_preference"] = None if found is None else \
            CovariateEffect(**found)
    return result


def _match(entry: Mapping[str, Any]) -> MatchResult:
    fields = dict(entry)
    fields["rounds"] = [RoundResult(**call) for call in entry["rounds"]]
    return MatchResult(**fields)


def _ranking_call(entry: Mapping[str, Any]) -> RankingCall:
    order = entry.get("order")
    return RankingCall(**{**entry, "items": tuple(entry["items"]),
                          "order": None if order is None else tuple(tuple(p) for p in order)})


def statistics_from_dict(data: Mapping[str, Any]) -> Statistics:
    """`Statistics` from its JSON form, the audit's records rebuilt."""
    fields = dict(data)
    fields.pop("tokens_per_text", None)  # derived from the tokens and the items
    if fields.get("position_bias") is not None:
        fields["position_bias"] = PositionBias(**fields["position_bias"])
    if fields.get("order_consistency") is not None:
        fields["order_consistency"] = OrderConsistency(**fields["order_consistency"])
    if fields.get("early_stop") is not None:
        fields["early_stop"] = EarlyStop(**fields["early_stop"])
    if fields.get("calibration") is not None:
        bins = tuple(ReliabilityBin(**b) for b in fields["calibration"].get("bins", ()))
        fields["calibration"] = Calibration(**{**fields["calibration"], "bins": bins})
    fields["judges"] = tuple(_judge(entry) for entry in fields.get("judges", ()))
    fields["slot_bias"] = tuple(SlotShare(**entry) for entry in fields.get("slot_bias", ()))
    fields["agreement"] = tuple(
        JudgeAgreement(**{**entry, "judges": tuple(entry["judges"])})
        for entry in fields.get("agreement", ())
    )
    return Statistics(**fields)


def _judge(entry: Mapping[str, Any]) -> JudgeAudit:
    fields = dict(entry)
    if fields.get("position_bias") is not None:
        fields["position_bias"] = PositionBias(**fields["position_bias"])
    fields["order_consistency"] = OrderConsistency(**fields["order_consistency"])
    return JudgeAudit(**fields)


def _restore_uncertainty(result: SortResult, data: Mapping[str, Any]) -> None:
    """Put the report's scores, intervals and top-K probabilities back in the result.

    They are what the rating model gave when the report was written; a report without
    them (an older one) leaves the result to fit them again when asked.
    """
    entries = [e for e in data.get("standings", ()) if "score" in e]
    if not entries or len(entries) != len(data["standings"]):
        return
    result.__dict__["scores"] = {e["item"]: e["score"] for e in entries}
    result.__dict__["intervals"] = {e["item"]: tuple(e["interval"]) for e in entries}
    k = data.get("uncertainty", {}).get("top_k")
    if isinstance(k, int):
        result.__dict__["_top_k"] = {k: {e["item"]: e["top_k_probability"] for e in entries}}
