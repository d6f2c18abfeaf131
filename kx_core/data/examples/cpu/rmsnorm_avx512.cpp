// RMSNorm with AVX-512: 16 lanes at a time, the tail as one masked step (the seed's
// "Masked SIMD" pattern) rather than a scalar loop. Its own translation unit, compiled
// with the AVX-512 tier's flags; dispatch.cpp calls it only where the CPU and the OS
// support AVX-512.
#include <immintrin.h>

#include <cmath>

#include "kernels.hpp"

namespace kx_cpu::avx512 {

void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps) {
#pragma omp parallel for if (rows > 8)
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = x + r * hidden;
        float* dst = out + r * hidden;
        const int64_t full = hidden - hidden % 16;
        const __mmask16 tail = static_cast<__mmask16>((1u << (hidden % 16)) - 1u);
        __m512 acc = _mm512_setzero_ps();
        for (int64_t i = 0; i < full; i += 16) {
            __m512 v = _mm512_loadu_ps(row + i);
            acc = _mm512_fmadd_ps(v, v, acc);
        }
        __m512 last = _mm512_maskz_loadu_ps(tail, row + full);
        acc = _mm512_fmadd_ps(last, last, acc);
        const float sum = _mm512_reduce_add_ps(acc);
        const float scale = 1.0f / std::sqrt(sum / static_cast<float>(hidden) + eps);
        const __m512 vscale = _mm512_set1_ps(scale);
        for (int64_t j = 0; j < full; j += 16) {
            __m512 v = _mm512_mul_ps(_mm512_loadu_ps(row + j), vscale);
            _mm512_storeu_ps(dst + j, _mm512_mul_ps(v, _mm512_loadu_ps(weight + j)));
        }
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, row + full), vscale);
        _mm512_mask_storeu_ps(dst + full, tail, _mm512_mul_ps(v, _mm512_maskz_loadu_ps(tail, weight + full)));
    }
}

}  // namespace kx_cpu::avx512
