"""Leases keep one process on a run at a time, so that no comparison is paid for twice.

`RunLease` is the seam; `SqliteRunLease` keeps holders in the run journal's SQLite file (the
default store), `PostgresRunLease` in the PostgreSQL database that keeps the runs, and
`LocalRunLease` in process memory (in-memory runs and custom checkpointers).
"""

from llm_qualitative_sort.stores.leases.base import LeaseHolder, RunLease, is_stale
from llm_qualitative_sort.stores.leases.local import LocalRunLease
from llm_qualitative_sort.stores.leases.postgres import PostgresRunLease
from llm_qualitative_sort.stores.leases.sqlite import SqliteRunLease

__all__ = [
    "LeaseHolder", "LocalRunLease", "PostgresRunLease", "RunLease", "SqliteRunLease", "is_stale",
]
