"""The Bradley–Terry fit behind `llm_qualitative_sort.bradley_terry`, and the judge's position bias.

`newton` maximises the penalised likelihood, `posterior` gives its normal approximation,
`fit_input` checks what callers pass to the fit, `played` reads a run's matches as the fit's
calls; `position_bias` estimates a judge's lean toward the text shown first. The public face
is `llm_qualitative_sort.bradley_terry`.
"""
