// RMSNorm of each row: out = x / sqrt(mean(x^2) + eps) * weight. The sum of squares
// accumulates in fp32 with FMA, 8 lanes at a time, then a scalar tail; rows in parallel.
#include <immintrin.h>

#include <cmath>

#include "kernels.hpp"

namespace kx_cpu::avx2 {

static float horizontal_sum(__m256 v) {
    __m128 lo = _mm256_castps256_ps128(v);
    __m128 hi = _mm256_extractf128_ps(v, 1);
    __m128 s = _mm_add_ps(lo, hi);
    s = _mm_hadd_ps(s, s);
    s = _mm_hadd_ps(s, s);
    return _mm_cvtss_f32(s);
}

void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps) {
#pragma omp parallel for if (rows > 8)
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = x + r * hidden;
        float* dst = out + r * hidden;
        __m256 acc = _mm256_setzero_ps();
        int64_t i = 0;
        for (; i + 8 <= hidden; i += 8) {
            __m256 v = _mm256_loadu_ps(row + i);
            acc = _mm256_fmadd_ps(v, v, acc);
        }
        float sum = horizontal_sum(acc);
        for (; i < hidden; ++i) {
            sum += row[i] * row[i];
        }
        const float scale = 1.0f / std::sqrt(sum / static_cast<float>(hidden) + eps);
        const __m256 vscale = _mm256_set1_ps(scale);
        int64_t j = 0;
        for (; j + 8 <= hidden; j += 8) {
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(row + j), vscale);
            _mm256_storeu_ps(dst + j, _mm256_mul_ps(v, _mm256_loadu_ps(weight + j)));
        }
        for (; j < hidden; ++j) {
            dst[j] = row[j] * scale * weight[j];
        }
    }
}

}  // namespace kx_cpu::avx2
