// Element-wise: out = a + b, 8 floats per AVX2 step, a scalar loop for the tail.
// Its own translation unit, compiled with the AVX2 tier's flags (-mavx2 -mfma -mf16c).
#include <immintrin.h>

#include "kernels.hpp"

namespace kx_cpu::avx2 {

void vector_add(const float* a, const float* b, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i);
        __m256 y = _mm256_loadu_ps(b + i);
        _mm256_storeu_ps(out + i, _mm256_add_ps(x, y));
    }
    for (; i < n; ++i) {
        out[i] = a[i] + b[i];
    }
}

}  // namespace kx_cpu::avx2
