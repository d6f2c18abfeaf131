"""Corpus driver (kx's code): AutoGPTQ/AutoGPTQ's Triton GPTQ layer
(auto_gptq/nn_modules/qlinear/qlinear_triton.py: QuantLinear, packing a Linear's 2 / 4 / 8-bit
codes into int32 words with numpy on the CPU (pack), then forward through
triton_utils/kernels.py: quant_matmul_248_kernel (the fused dequantise-and-matmul, unpacking
codes / zero points per g_idx group in registers) and, for a trainable layer's backward,
transpose_quant_matmul_248_kernel (grad_input = grad_output @ W^T); both kernels under the repo's
own autotuner (triton_utils/custom_autotune.py: CustomizedTritonAutoTuner, keys M / N / K rounded
to the nearest power of two, an early_config_prune that shrinks blocks to the problem); and the
QuantLinear.warmup classmethod that pre-tunes every power-of-two M up to a sequence length) as a
GPTQ-quantised Llama-7B MLP is used: gate / up (4096 -> 11008) and down (11008 -> 4096), 4-bit,
group size 128, the down projection quantised with act-order (a permuted g_idx); weights packed on
the CPU then moved to the GPU as AutoGPTQ loads them; warmup to 512 tokens; a fp16 forward of
4 x 512 tokens and a backward to the input (the trainable path, as adapter training on a GPTQ
model runs it); a 2-bit and an 8-bit layer once each; outputs and input gradients compared with
the same layers dequantised in PyTorch."""

import _corpus9_support as S
import torch
import torch.nn.functional as F

S.bare_package("auto_gptq.nn_modules")
from auto_gptq.nn_modules.qlinear.qlinear_triton import QuantLinear  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, FF = S.pick((4096, 11008), (64, 96))
GROUP = S.pick(128, 32)
TOKENS = S.pick((4, 512), (2, 8))


def quantised(in_f, out_f, bits, act_order=False):
    """A Linear quantised and packed the way AutoGPTQ packs GPTQ results (CPU), then moved."""
    lin = torch.nn.Linear(in_f, out_f, bias=False)
    torch.nn.init.normal_(lin.weight, std=in_f**-0.5)
    scales, zeros, g_idx = S.gptq_rtn_params(lin.weight.data, bits, GROUP, act_order=act_order)
    w_deq = S.gptq_dequantize(lin.weight.data, scales, zeros, g_idx, bits)
    q = QuantLinear(bits, GROUP, in_f, out_f, bias=False, trainable=True)
    q.pack(lin, scales, zeros, g_idx)
    return q.to(dev), w_deq.to(dev).half()


layers = {
    "gate": quantised(D, FF, 4),
    "up": quantised(D, FF, 4),
    "down": quantised(FF, D, 4, act_order=True),
}


class MLP(torch.nn.ModuleDict):
    """What warmup reads of a Hugging Face model: its modules and its .device."""

    device = torch.device(dev)


mlp = MLP({k: v[0] for k, v in layers.items()})
QuantLinear.warmup(mlp, seqlen=S.pick(512, 16))
print("packed", {k: tuple(m.qweight.shape) for k, m in mlp.items()}, "warmup done")

x = (torch.randn(*TOKENS, D, device=dev) * 0.5).half().requires_grad_()
h = F.silu(mlp["gate"](x)) * mlp["up"](x)
y = mlp["down"](h)
dy = torch.randn_like(y)
y.backward(dy)
gx = x.grad.clone()
x.grad = None

w = {k: v[1] for k, v in layers.items()}
xr = x.detach().float().requires_grad_()
hr = F.silu(xr @ w["gate"].float().t()) * (xr @ w["up"].float().t())
yr = hr @ w["down"].float().t()
yr.backward(dy.float())
print(
    "4-bit MLP",
    tuple(y.shape),
    f"y rel err {S.rel_err(y, yr):.1e}",
    f"grad x rel err {S.rel_err(gx, xr.grad):.1e}",
)

for bits in (2, 8):
    q, wd = quantised(D, D, bits)
    xb = torch.randn(S.pick(64, 4), D, device=dev).half().requires_grad_()
    out = q(xb)
    out.float().sum().backward()
    print(
        f"{bits}-bit layer",
        tuple(out.shape),
        f"rel err {S.rel_err(out, xb.float() @ wd.float().t()):.1e}",
        f"grad rel err {S.rel_err(xb.grad, wd.float().sum(0).expand_as(xb)):.1e}",
    )
torch.cuda.synchronize()
print("autogptq triton qlinear ok")
