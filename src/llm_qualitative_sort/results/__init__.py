"""From a run's stored state to what it reports: the result, its audit and events.

`from_state` turns the graph's state into `SortResult` and its `Statistics` (the result's
lazily fitted Bradley–Terry model is `rating.result.Rating`); `audit` audits the judges from
the matches; `events` makes the progress events; `stops` says why a run stopped.
"""
