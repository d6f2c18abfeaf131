// The kernels kx's CPU examples build (AVX2, and RMSNorm also in AVX-512), one namespace per ISA tier (the seed's
// namespace_isolation rule); dispatch.cpp picks a tier at run time.
#pragma once
#include <cstdint>

namespace kx_cpu::avx2 {
void vector_add(const float* a, const float* b, float* out, int64_t n);
void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps);
void gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
}  // namespace kx_cpu::avx2

namespace kx_cpu::avx512 {
void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps);
}  // namespace kx_cpu::avx512

namespace kx_cpu::scalar {
void vector_add(const float* a, const float* b, float* out, int64_t n);
void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps);
void gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);
}  // namespace kx_cpu::scalar
