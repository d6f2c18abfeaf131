"""The seed drills' surfaces (../shared/seeds/drills_triton_luminal.txt) as their tests
call them, each the engine module that implements the drill plus the test doubles the
drill defines, which the engine itself never uses:

    k2_bench_harness  kx_core.bench.harness  + FakeClock
    t3_autotune       kx_core.model.autotune + fake_measure
    t4_minimize       kx_core.bench.minimize + buggy_row_sum

The other drills' modules have no test doubles; their tests import them directly
(ARCHITECTURE.md names the module of each drill)."""
