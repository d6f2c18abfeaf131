"""Corpus driver (kx's code): hpcaitech/ColossalAI's Triton RMSNorm (colossalai/kernel/triton/
rms_layernorm.py: rms_layernorm over _rmsnorm_kernel and _rmsnorm_with_residual_kernel, the
latter adding the residual in place into the input (stored as fp16) before normalising, with
BLOCK_SIZE = min(64KB / element size, next_power_of_2(N)) and num_warps from N), called as
colossalai/inference's nopadding_llama.py NopadLlamaRMSNorm does with use_cuda_kernel=False:
`rms_layernorm(hidden_states, weight, eps, norm_output, residual)` returning (normed, new
residual), and without a residual for the first layer. Packed token batches (1, 77, 4096 and
8192 + 3 tokens, the last a prefill of several prompts) at the hidden sizes of Llama-2-7B (4096),
13B (5120), 70B (8192) and a 3000-wide odd size, fp16, a preallocated norm_output reused across
calls as the model does; each result compared with a torch reference (the residual sum and the
normalised output)."""

import _corpus7_support as S
import torch

S.bare_package("colossalai")
S.bare_package("colossalai.kernel")
from colossalai.kernel.triton.rms_layernorm import rms_layernorm  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
eps = 1e-5


def ref_norm(x, w):
    x = x.float()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.float()


for hidden in S.pick((4096, 5120, 8192, 3000), (64, 48)):
    w = torch.randn(hidden, device=dev, dtype=dt) * 0.1 + 1
    for tokens in S.pick((1, 77, 8195), (1, 9)):
        x = torch.randn(tokens, hidden, device=dev, dtype=dt)
        norm_out = torch.empty_like(x)
        y, _ = rms_layernorm(x, w, eps, norm_out)
        e1 = (y.float() - ref_norm(x, w)).abs().max().item()
        res = torch.randn(tokens, hidden, device=dev, dtype=dt)
        x2 = torch.randn(tokens, hidden, device=dev, dtype=dt)
        summed = x2.float() + res.float()
        y2, new_res = rms_layernorm(x2, w, eps, norm_out, res)
        e2 = (new_res.float() - summed).abs().max().item()
        e3 = (y2.float() - ref_norm(summed.half(), w)).abs().max().item()
        print(hidden, tokens, "err", round(e1, 4), "residual", round(e2, 4), round(e3, 4))
torch.cuda.synchronize()
print("colossalai rmsnorm ok")
