// A small GEMM, C (m x n) = A (m x k) @ B (k x n), row-major fp32: for each row of C,
// 8 columns at a time with FMA broadcasting A's element, a scalar loop for the last
// n % 8 columns.
#include <immintrin.h>

#include "kernels.hpp"

namespace kx_cpu::avx2 {

void gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    for (int64_t i = 0; i < m; ++i) {
        int64_t j = 0;
        for (; j + 8 <= n; j += 8) {
            __m256 acc = _mm256_setzero_ps();
            for (int64_t p = 0; p < k; ++p) {
                __m256 av = _mm256_set1_ps(a[i * k + p]);
                acc = _mm256_fmadd_ps(av, _mm256_loadu_ps(b + p * n + j), acc);
            }
            _mm256_storeu_ps(c + i * n + j, acc);
        }
        for (; j < n; ++j) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; ++p) {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
}

}  // namespace kx_cpu::avx2
