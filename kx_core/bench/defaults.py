"""The measuring options' defaults, spelled once: the requests (kx_core.bench.requests),
the workers' own argument parsers and the CLI read them here."""

BUDGET_MS = 400.0  # GPU time spent timing each launch (kx bench --budget-ms)
WINDOW_MS = 100.0  # GPU time a profile samples per kernel (kx profile --window-ms)
