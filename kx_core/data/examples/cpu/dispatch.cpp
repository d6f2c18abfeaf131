// Runtime dispatch, compiled without SIMD flags (the seed's separate_translation_units
// rule): AVX-512 where the CPU has AVX512F (cpuid) and the OS saves the opmask and ZMM
// state, else AVX2 where it has AVX2 and FMA and the OS saves the YMM registers (XCR0
// through xgetbv), else scalar; the answers are cached. KX_CPU_TIER=avx2|avx512|scalar
// asks for one variant (kx bench sets it to the tier of the file you opened, so that
// rmsnorm_avx2.cpp times the AVX2 code on an AVX-512 machine); a tier this CPU cannot
// run is not taken, and rmsnorm_tier() says which one ran.
#include <cmath>
#include <cpuid.h>
#include <cstdlib>
#include <cstring>

#include "kernels.hpp"

namespace kx_cpu {

static unsigned int xcr0() {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return 0;
    unsigned int lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}

static bool os_saves_ymm() { return (xcr0() & 0x6) == 0x6; }  // XMM and YMM state
static bool os_saves_zmm() { return (xcr0() & 0xe6) == 0xe6; }  // and opmask, ZMM0-31

static bool has_avx512() {
    static const bool supported = __builtin_cpu_supports("avx512f") && os_saves_zmm();
    return supported;
}

static bool has_avx2() {
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && os_saves_ymm();
    return supported;
}

namespace scalar {
void vector_add(const float* a, const float* b, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps) {
    for (int64_t r = 0; r < rows; ++r) {
        float sum = 0.0f;
        for (int64_t i = 0; i < hidden; ++i) sum += x[r * hidden + i] * x[r * hidden + i];
        const float scale = 1.0f / std::sqrt(sum / static_cast<float>(hidden) + eps);
        for (int64_t i = 0; i < hidden; ++i) out[r * hidden + i] = x[r * hidden + i] * scale * weight[i];
    }
}
void gemm(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
            c[i * n + j] = s;
        }
}
}  // namespace scalar

// the widest tier this CPU runs, at most the one KX_CPU_TIER asks for
static bool asked_at_most(const char* tier) {
    const char* asked = std::getenv("KX_CPU_TIER");
    if (asked == nullptr || *asked == '\0' || std::strcmp(asked, "avx512") == 0) return true;
    if (std::strcmp(asked, "avx2") == 0) return std::strcmp(tier, "avx512") != 0;
    return false;  // "scalar"
}

static bool run_avx512() { return has_avx512() && asked_at_most("avx512"); }
static bool run_avx2() { return has_avx2() && asked_at_most("avx2"); }

const char* rmsnorm_tier() { return run_avx512() ? "avx512" : run_avx2() ? "avx2" : "scalar"; }

void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps) {
    if (run_avx512()) {
        avx512::rmsnorm(x, weight, out, rows, hidden, eps);
    } else if (run_avx2()) {
        avx2::rmsnorm(x, weight, out, rows, hidden, eps);
    } else {
        scalar::rmsnorm(x, weight, out, rows, hidden, eps);
    }
}

}  // namespace kx_cpu
