"""A judge that replays stored human votes, for measuring strategies on real judgements.

The data this was written for is UKPConvArg1 (Habernal and Gurevych, "Which argument is
more convincing? Analyzing and predicting convincingness of Web arguments using
bidirectional LSTM", ACL 2016, https://aclanthology.org/P16-1150; CC-BY 4.0 — keep this
attribution wherever the data or figures from it appear): for every pair of a debate
stance's arguments, about five crowd votes, each `1` (the first-shown argument is more
convincing), `2` (the second) or `=` (equally convincing), all made in one presentation
order. `load_replay_topic` reads one topic of it as JSON; `ReplayProvider` answers each
call with one stored vote of the pair shown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from llm_qualitative_sort.errors import InputError, PermanentProviderError
from llm_qualitative_sort.providers.base import LLMProvider
from llm_qualitative_sort.testing._draws import keyed_rng
from llm_qualitative_sort.verdicts import ComparisonResult, Side

# A stored vote in the terms of the call that replays it: a side, or equally good.
Outcome = Literal["A", "B", "tie"]
VOTES = frozenset("12=")


@dataclass(frozen=True)
class ReplayTopic:
    """The texts of one topic and the stored votes of each pair, in the order shown.

    `votes[(x, y)]` holds the votes made with text `x` shown first (one character each:
    "1", "2" or "="); each unordered pair is stored in one order only. `dropped` lists the
    ids left out because their text repeats a kept one (a sorter refuses duplicate items).
    """

    name: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    votes: Mapping[tuple[str, str], str]
    dropped: tuple[str, ...] = ()

    def observations(self) -> tuple[list[int], list[int], list[float]]:
        """Every stored vote as `(first, second, share won by first)` over indices of `ids`.

        "=" counts as half a win for each side: the input of the gold Bradley–Terry fit.
        """
        index = {item: i for i, item in enumerate(self.ids)}
        first: list[int] = []
        second: list[int] = []
        share: list[float] = []
        for (x, y), votes in self.votes.items():
            for vote in votes:
                first.append(index[x])
                second.append(index[y])
                share.append({"1": 1.0, "2": 0.0, "=": 0.5}[vote])
        return first, second, share


def load_replay_topic(path: str | Path) -> ReplayTopic:
    """Read one topic of UKPConvArg1 as JSON (Habernal & Gurevych, ACL 2016; CC-BY 4.0).

    The file holds `{"topic": ..., "args": {id: text}, "pairs": [[id1, id2, "12=21"], ...]}`,
    the votes in the order the pair was shown (id1 first). An argument whose text repeats
    an earlier one (in id order) is dropped with its pairs, since a sorter refuses duplicate
    items; `ReplayTopic.dropped` names it.

    Raises:
        ValueError: A pair names an unknown id, holds no votes or a vote other than
            "1", "2", "=", or is stored twice.
    """
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    args: dict[str, str] = data["args"]
    kept: dict[str, str] = {}
    dropped: list[str] = []
    for arg_id in sorted(args):
        if args[arg_id] in kept:
            dropped.append(arg_id)
        else:
            kept[args[arg_id]] = arg_id
    ids = tuple(kept.values())
    votes: dict[tuple[str, str], str] = {}
    for x, y, stored in data["pairs"]:
        _check_pair(args, x, y, stored, votes)
        if x in dropped or y in dropped:
            continue
        votes[(x, y)] = stored
    return ReplayTopic(str(data.get("topic", Path(path).stem)), ids,
                       tuple(args[i] for i in ids), votes, tuple(dropped))


def _check_pair(args: Mapping[str, str], x: str, y: str, stored: str,
                votes: Mapping[tuple[str, str], str]) -> None:
    if x not in args or y not in args or x == y:
        raise InputError(f"pair ({x!r}, {y!r}) does not name two known arguments")
    if not stored or not set(stored) <= VOTES:
        raise InputError(f"pair ({x!r}, {y!r}) has votes {stored!r}; each must be 1, 2 or =")
    if (x, y) in votes or (y, x) in votes:
        raise InputError(f"pair ({x!r}, {y!r}) is stored twice")


def call_outcome(vote: str, flipped: bool) -> Outcome:
    """A stored vote in the terms of a call; `flipped` when the call shows the pair reversed.

    Example:
        >>> call_outcome("1", flipped=False), call_outcome("1", flipped=True)
        ('A', 'B')
        >>> call_outcome("=", flipped=True)
        'tie'
    """
    if vote == "=":
        return "tie"
    first_won = vote == "1"
    return "A" if first_won != flipped else "B"


class ReplayProvider(LLMProvider):
    """Answers each call with one stored vote of the pair shown, oriented to the call.

    Every call draws its vote from the pair's stored votes, deterministically in
    (seed, pair, presentation order, repetition) — never in call order — so resumes,
    concurrency and completion order leave every verdict as it was. The calls on a pair
    take its votes without replacement (a seeded permutation per pair; slot
    `2·repetition + 1 if the call shows the pair reversed else 0`), so the first calls on a
    pair hear different voters; past the stored votes the permutation starts again
    (drawn afresh). A call showing the pair in the reverse of the stored order flips the
    vote: "1" (stored first won) then means "B".

    Ties: in a run that allows ties (`ties=True`, which passes `ties=True` to each call),
    an "=" vote answers `winner="tie"`; in a run without, a seeded coin flip keyed on the
    call decides it (marked `"coin": True` in the raw answer). Either way the same vote is
    drawn, so the two settings replay the same voters. The constructor's `ties=True`
    makes direct `compare` calls (outside a run) answer ties too.

    Args:
        topic: The texts and votes to replay (`load_replay_topic`).
        seed: Seed of the vote choice and of the coin flips.
        ties: Answer "=" votes of direct `compare` calls with a tie.

    Example:
        >>> import asyncio
        >>> topic = ReplayTopic("t", ("x", "y"), ("one", "two"), {("x", "y"): "11111"})
        >>> judge = ReplayProvider(topic, seed=0)
        >>> asyncio.run(judge.compare("one", "two", "convincing")).winner
        'A'
        >>> asyncio.run(judge.compare("two", "one", "convincing")).winner
        'B'
    """

    def __init__(self, topic: ReplayTopic, seed: int = 0, *, ties: bool = False) -> None:
        super().__init__(model=f"replay:{topic.name}")
        self.topic = topic
        self.seed = seed
        self.ties = ties
        self._ids = {text: item for item, text in zip(topic.ids, topic.texts, strict=True)}
        self.calls = 0

    @property
    def model_identity(self) -> str:
        """Replays share answers only with the same topic and seed.

        Calls that offer a tie are cached under `tie_identity` (this, marked "+ties").
        """
        return f"ReplayProvider:{self.topic.name}:seed={self.seed}"

    def check_items(self, items: Sequence[str]) -> None:
        """Refuse texts the topic does not hold, and pairs of them without stored votes.

        Raises:
            ValueError: Naming the first unknown text or the first pair without votes.
        """
        unknown = next((text for text in items if text not in self._ids), None)
        if unknown is not None:
            raise InputError(f"ReplayProvider has no stored votes for {unknown[:40]!r}")
        ids = [self._ids[text] for text in items]
        for i, x in enumerate(ids):
            for y in ids[i + 1:]:
                if (x, y) not in self.topic.votes and (y, x) not in self.topic.votes:
                    raise InputError(f"ReplayProvider has no stored votes for {x} vs {y}")

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        """Replay as the first repetition of this presentation order."""
        return await self.compare_call(item_a, item_b, criteria, repetition=0, ties=self.ties)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int, ties: bool = False
    ) -> ComparisonResult:
        """One stored vote of the pair, in the call's terms; deterministic in the call.

        With `ties` (the run allows ties) an "=" vote is a tie, else a seeded coin flip.
        """
        del criteria
        a, b = self._id(item_a), self._id(item_b)
        flipped = (a, b) not in self.topic.votes
        stored_first, stored_second = (b, a) if flipped else (a, b)
        stored = self.topic.votes.get((stored_first, stored_second))
        if stored is None:
            raise PermanentProviderError(f"no stored votes for {a} vs {b}")
        slot = 2 * repetition + flipped
        cycle, place = divmod(slot, len(stored))
        order = list(range(len(stored)))
        keyed_rng(self.seed, "votes", stored_first, stored_second, cycle).shuffle(order)
        vote = stored[order[place]]
        self.calls += 1
        raw: dict[str, Any] = {"vote": vote, "flipped": flipped}
        outcome = call_outcome(vote, flipped)
        if outcome != "tie" or ties:
            return ComparisonResult(outcome, f"stored vote {vote!r}", raw_response=raw)
        # A forced choice: a coin keyed on the call decides, as a voter made to choose might.
        coin = keyed_rng(self.seed, "coin", a, b, repetition).random() < 0.5
        winner: Side = "A" if coin else "B"
        return ComparisonResult(winner, "stored vote '=': coin flip",
                                raw_response=raw | {"coin": True})

    def _id(self, text: str) -> str:
        found = self._ids.get(text)
        if found is None:
            raise PermanentProviderError(f"no stored votes for {text[:40]!r}")
        return found
