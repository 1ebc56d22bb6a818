"""From a run's stored state to what it reports: the result, its rating, audit and events.

`from_state` turns the graph's state into `SortResult` and its `Statistics`; `rating` is
the lazily fitted Bradley–Terry model of one result; `audit` audits the judges from the
matches; `events` makes the progress events; `stops` says why a run stopped.
"""
