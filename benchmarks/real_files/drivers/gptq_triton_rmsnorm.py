"""Corpus driver (kx's code): GPTQ-for-LLaMa's Triton RMSNorm (qwopqwop200/GPTQ-for-LLaMa, triton
branch, quant/triton_norm.py: rms_norm_fwd_fused walks each row twice in BLOCK_SIZE chunks (an fp32
sum of squares, then x * rstd * w stored back in the input dtype); TritonLlamaRMSNorm.forward picks
BLOCK_SIZE = min(64 KB / element size, next_power_of_2(N)) and num_warps from it on the host,
reshapes to 2-D and launches one program per row inside `with torch.cuda.device(...)`;
make_quant_norm walks a model's named_modules and swaps every LlamaRMSNorm for it through
get_submodule / setattr). transformers is a stand-in (LlamaRMSNorm with the HF formula, kx's
code). The driver builds a small stack of LlamaRMSNorm layers (hidden 4096 / 5120 / 8192), lets
make_quant_norm swap them, and runs fp16 / bf16 / fp32 activations through; checked against
the stand-in's torch formula."""

import _corpus21_support as S

LlamaRMSNorm = S.install_llama_rmsnorm_standin()
S.bare_package("quant", S.find_on_path("quant"))  # quant/__init__.py imports fused_attn (transformers)
import torch  # noqa: E402
from quant.triton_norm import TritonLlamaRMSNorm, make_quant_norm  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (hidden, dtype, input shape prefix)
CASES = S.pick(
    [
        (4096, torch.float16, (4, 2048)),
        (5120, torch.bfloat16, (2, 1024)),
        (8192, torch.float16, (1, 1000)),
        (4096, torch.float32, (3, 333)),
    ],
    [(64, torch.float16, (2, 5)), (300, torch.float32, (7,)), (96, torch.bfloat16, (1, 3))],
)


class Block(torch.nn.Module):
    def __init__(self, hidden, dtype):
        super().__init__()
        self.input_layernorm = LlamaRMSNorm(hidden, eps=1e-6).to(dtype)
        self.inner = torch.nn.Module()
        self.inner.post_attention_layernorm = LlamaRMSNorm(hidden, eps=1e-5).to(dtype)
        with torch.no_grad():
            for p in self.parameters():
                p.normal_(1.0, 0.2)


errs, swapped = [], 0
for hidden, dt, prefix in CASES:
    model = Block(hidden, dt).to(dev)
    refs = [model.input_layernorm, model.inner.post_attention_layernorm]
    x = torch.randn(*prefix, hidden, device=dev, dtype=dt) * 3
    want = [m(x) for m in refs]
    make_quant_norm(model)
    got = [model.input_layernorm(x), model.inner.post_attention_layernorm(x)]
    swapped += sum(isinstance(m, TritonLlamaRMSNorm) for m in model.modules())
    errs += [S.rel_err(g, w) for g, w in zip(got, want)]
print(
    f"GPTQ-for-LLaMa TritonLlamaRMSNorm via make_quant_norm: {swapped} layers swapped in {len(CASES)} models "
    f"(hidden {[c[0] for c in CASES]}, {[str(c[1]).split('.')[-1] for c in CASES]}): rel err vs torch max {max(errs):.1e}"
)
assert swapped == 2 * len(CASES), swapped
assert max(errs) < 2e-2, errs
S.sync()
print("gptq_triton_rmsnorm ok")
