// SiLU-and-mul as a one-file torch extension (the Hugging Face kernels community's CPU
// style): out = silu(x[..., :d]) * x[..., d:], rows in parallel with OpenMP. No
// intrinsics: GCC's auto-vectorizer does the SIMD, and its remarks say where it did.
// ATen's per-operator headers and torch/library.h rather than torch/extension.h, as
// PyTorch's own sources include them: extension.h brings pybind11 and every op's
// declaration, and the same file then takes g++ about 50 s instead of about 15.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>

namespace kx_ext {

static inline float silu(float v) { return v / (1.0f + std::exp(-v)); }

// one row; inlined into the OpenMP region below, its loop left to the vectorizer
static inline void silu_mul_row(const float* x, float* out, int64_t d) {
    for (int64_t i = 0; i < d; ++i) {
        out[i] = silu(x[i]) * x[d + i];
    }
}

// the output's scale (a reduction the vectorizer turns into a vector max)
static inline float row_absmax(const float* row, int64_t n) {
    float m = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        m = std::max(m, std::fabs(row[i]));
    }
    return m;
}

static inline void scale_row(float* row, int64_t n, float k) {
    for (int64_t i = 0; i < n; ++i) {
        row[i] *= k;
    }
}

void silu_mul(const float* x, float* out, int64_t rows, int64_t d, bool normalize) {
#pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
        silu_mul_row(x + r * 2 * d, out + r * d, d);
        if (normalize) {
            const float m = row_absmax(out + r * d, d);
            scale_row(out + r * d, d, m > 0.0f ? 1.0f / m : 1.0f);
        }
    }
}

// the first NaN's index: the early exit keeps this loop scalar
int64_t first_nan(const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) return i;
    }
    return -1;
}

}  // namespace kx_ext

at::Tensor silu_and_mul(at::Tensor input, bool normalize) {
    TORCH_CHECK(input.dtype() == at::kFloat, "fp32 only");
    TORCH_CHECK(input.size(-1) % 2 == 0, "the last dimension must be even");
    auto x = input.contiguous();
    const int64_t d = x.size(-1) / 2;
    auto sizes = x.sizes().vec();
    sizes.back() = d;
    auto out = at::empty(sizes, x.options());
    TORCH_CHECK(kx_ext::first_nan(x.data_ptr<float>(), x.numel()) < 0, "input holds a NaN");
    kx_ext::silu_mul(x.data_ptr<float>(), out.data_ptr<float>(), x.numel() / (2 * d), d, normalize);
    return out;
}

TORCH_LIBRARY(kx_ext, m) { m.def("silu_and_mul(Tensor input, bool normalize) -> Tensor", &silu_and_mul); }
