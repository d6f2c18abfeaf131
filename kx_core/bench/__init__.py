"""Measurement: the timing harness (K2) and GPU timing, numerics (K3), bug minimisation
(T4), structured comparison and the trial history. Pure Python/numpy except
kx_core.bench.gpu, which needs torch with CUDA."""
