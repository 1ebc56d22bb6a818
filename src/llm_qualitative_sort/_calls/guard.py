"""Live calls that refuse a round whose provider batch may still be out."""

from __future__ import annotations

from collections.abc import Sequence

from llm_qualitative_sort._calls.base import AnswerSink, Call, CallRunner, CallSettings
from llm_qualitative_sort.errors import PermanentProviderError


class LiveAfterBatch(CallRunner):
    """Live calls, except for a round whose batch may still be at the provider.

    A run started in batch mode and resumed without it would otherwise pay live for calls
    its batch is answering (and paid for) already.

    Args:
        settings: The provider, cache, journal and limits of the run.
        live: The runner that makes the calls.
    """

    def __init__(self, settings: CallSettings, live: CallRunner) -> None:
        super().__init__(settings)
        self.live = live

    async def run(self, calls: Sequence[Call], answered: AnswerSink) -> None:
        """Refuse while a batch of the round is open; else answer live."""
        if calls:
            place = calls[0].place
            waiting = self.settings.journal.batches_in_flight(place.run_id, place.round_number)
            if waiting:
                raise PermanentProviderError(
                    f"round {place.round_number} is waiting on batch {', '.join(waiting)} at "
                    "the provider: resume in batch mode (batch=True, --batch) to collect its "
                    "answers rather than paying for the calls again"
                )
        await self.live.run(calls, answered)
