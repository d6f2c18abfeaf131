// Lowering to LLVM without options takes triton-opt's defaults (compute-capability=80,
// ptx-version=80): no native fp8 conversion, which sm_90 has.
// RUN: triton-opt %s --allocate-shared-memory-nv --convert-triton-gpu-to-llvm | FileCheck %s --check-prefix=SM80
// RUN: triton-opt %s --allocate-shared-memory-nv=compute-capability=90 --convert-triton-gpu-to-llvm=compute-capability=90 | FileCheck %s --check-prefix=SM90

// SM80-LABEL: llvm.func @to_fp8
// SM80-NOT: cvt.rn.satfinite
// SM80: llvm.return
// SM90-LABEL: llvm.func @to_fp8
// SM90: cvt.rn.satfinite.e5m2x2.f16x2
#blocked = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @to_fp8(%arg0: !tt.ptr<f8E5M2>, %arg1: f16) {
    %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f8E5M2> -> tensor<256x!tt.ptr<f8E5M2>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<256x!tt.ptr<f8E5M2>, #blocked>, tensor<256xi32, #blocked>
    %3 = tt.splat %arg1 : f16 -> tensor<256xf16, #blocked>
    %4 = tt.fp_to_fp %3, rounding = rtne : tensor<256xf16, #blocked> -> tensor<256xf8E5M2, #blocked>
    tt.store %2, %4 : tensor<256x!tt.ptr<f8E5M2>, #blocked>
    tt.return
  }
}
