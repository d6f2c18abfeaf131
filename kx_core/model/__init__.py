"""Cost models: GPU specs, the GEMM tile/resource model (K1), fusion plans (K4), the
autotune pipeline (T3), the roofline, occupancy from real compiled numbers and work
estimates of captured kernels. Pure Python and numpy: imports fast, runs anywhere."""
