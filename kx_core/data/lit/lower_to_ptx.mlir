// The LLVM end of a conversion test: the lowered module through mlir-translate, opt and
// llc (the wheel's own steps) down to PTX for sm_90.
// RUN: triton-opt %s --allocate-shared-memory-nv=compute-capability=90 --convert-triton-gpu-to-llvm=compute-capability=90 --convert-nv-gpu-to-llvm | mlir-translate -mlir-to-llvmir | opt -S -O3 | FileCheck %s --check-prefix=LLVM
// RUN: triton-opt %s --allocate-shared-memory-nv=compute-capability=90 --convert-triton-gpu-to-llvm=compute-capability=90 --convert-nv-gpu-to-llvm | mlir-translate -mlir-to-llvmir | opt -S -O3 | llc -mtriple nvptx64-nvidia-cuda -mcpu=sm_90 -mattr=+ptx83 | FileCheck %s --check-prefix=PTX

// LLVM-LABEL: @add_one(
// LLVM: fadd float %{{[0-9]+}}, 1.000000e+00
// LLVM: ret void
// PTX: .target sm_90
// PTX-LABEL: .entry add_one(
// PTX: ld.global.b32
// PTX: add{{.*}}.f32 {{.*}}0f3F800000
// PTX: st.global.b32

#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @add_one(%arg0: !tt.ptr<f32>) {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tt.load %2 : tensor<128x!tt.ptr<f32>, #blocked>
    %cst = arith.constant dense<1.0> : tensor<128xf32, #blocked>
    %4 = arith.addf %3, %cst : tensor<128xf32, #blocked>
    tt.store %2, %4 : tensor<128x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
