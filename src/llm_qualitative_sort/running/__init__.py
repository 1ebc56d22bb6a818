"""What `QualitativeSorter` does around the graph.

It checks its arguments, matches a stored run and drives the graph to a result:

- `arguments`: the checks of the sorter's arguments that are not a run's settings, and its
  store;
- `stored`: what a run stores and must match when it is resumed (`RunPlan`);
- `drive`: playing the graph on to a `SortResult`, progress callbacks, stops;
- `setup`: what the sorter hands each run (`RunSetup`: its store, judge and settings);
- `runs`: the bodies of `sort` and `resume`: opening a run in the store, starting it or
  going on with it.
"""
