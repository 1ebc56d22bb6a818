"""How texts are rated: the Bradley–Terry fit, the judge's position bias, and pointwise scores.

`fit` fits the model (`fit_bradley_terry`), `newton` maximises the penalised likelihood,
`posterior` gives its normal approximation, `fit_input` checks what callers pass to the fit,
`played` reads a run's matches as the fit's calls; `result` is the lazily fitted model of one
result (`Rating`, behind `SortResult.scores`), and `preference` the judge's preference for
covariates such as length in its calls (`SortResult.length_preference`); `position_bias`
estimates a judge's lean toward the text shown first. The public face of the fit is
`llm_qualitative_sort.bradley_terry`. A text scored alone is rated on a scale (`scale`: a
pointwise run's labels, each described) and its answer read as a score (`scoring`: the
judge's label, the expected label from log-probabilities, the score it gives the text).
Nothing here imports the results above it.
"""
