// The torch binding: registers kx_cpu::rms_norm (only this file includes torch's
// headers, so the kernels' assembly compiles in a second). Built only to run the op.
// ATen's per-operator headers and torch/library.h, as PyTorch's own sources include them:
// torch/extension.h (pybind11 and every op's declaration) makes this build several times
// slower.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

#include <string>

namespace kx_cpu {
void rmsnorm(const float* x, const float* weight, float* out, int64_t rows, int64_t hidden, float eps);
const char* rmsnorm_tier();
}

std::string rms_norm_tier() { return kx_cpu::rmsnorm_tier(); }

at::Tensor rms_norm(at::Tensor x, at::Tensor weight, double eps) {
    TORCH_CHECK(x.dtype() == at::kFloat && weight.dtype() == at::kFloat, "fp32 only");
    auto xc = x.contiguous();
    auto out = at::empty_like(xc);
    const int64_t hidden = xc.size(-1);
    kx_cpu::rmsnorm(xc.data_ptr<float>(), weight.contiguous().data_ptr<float>(), out.data_ptr<float>(),
                    xc.numel() / hidden, hidden, static_cast<float>(eps));
    return out;
}

TORCH_LIBRARY(kx_cpu, m) {
    m.def("rms_norm(Tensor x, Tensor weight, float eps) -> Tensor", &rms_norm);
    m.def("rms_norm_tier() -> str", &rms_norm_tier);
}
