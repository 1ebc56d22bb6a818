"""The graph's nodes, one module each; thin adapters over the strategy in `tournament`.

Nothing is imported here: the schedules and the builder take each node from its own module,
so that loading one node never loads the schedules that wire the others.
"""
