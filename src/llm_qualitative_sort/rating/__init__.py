"""The Bradley–Terry fit behind `llm_qualitative_sort.bradley_terry`, and the judge's position bias.

`fit` fits the model (`fit_bradley_terry`), `newton` maximises the penalised likelihood,
`posterior` gives its normal approximation, `fit_input` checks what callers pass to the fit,
`played` reads a run's matches as the fit's calls; `result` is the lazily fitted model of one
result (`Rating`, behind `SortResult.scores`), and `preference` the judge's preference for
covariates such as length in its calls (`SortResult.length_preference`); `position_bias`
estimates a judge's lean toward the text shown first. The public face is
`llm_qualitative_sort.bradley_terry`. Nothing here imports the results above it.
"""
