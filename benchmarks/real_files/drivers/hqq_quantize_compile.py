"""Corpus driver (kx's code): mobiusml/hqq's half-quadratic quantisation and its compiled forwards
(hqq/core/quantize.py: HQQLinear, quantising an nn.Linear on construction through Quantizer
(per-group min / max, then hqq/core/optimize.py: optimize_weights_proximal, the half-quadratic
solver whose early stop compares the current and best error on the host every iteration, a
data-dependent read), bit-packing the codes (bitpack.py) and dequantising on every call; the
backends HQQBackend.PYTORCH_COMPILE (forward_pytorch_compile, a method decorated with
@torch.compile() in the class body, so compiled per instance and per shape) and
PYTORCH_BACKPROP_COMPILE (HQQMatmulNoCacheMul, a torch.autograd.Function whose forward and backward
both call matmul_compile, another @torch.compile()'d method, so the backward pass runs compiled
code too)) as a user quantises a Llama-7B layer's projections and runs them: 4-bit group 64 q / o
(4096 -> 4096), 3-bit group 64 gate (4096 -> 11008), 2-bit group 16 down (11008 -> 4096), fp16,
HQQ's default axis 1; an inference prefill of 2 x 512 tokens and 8 decode steps with the compiled
forward; then an adapter-style backward to the input with the compiled backprop backend. Each
output is compared with the same layer's dequantised weight in PyTorch and with the original
(unquantised) layer."""

import _corpus9_support as S
import torch

S.install_termcolor_standin()
S.bare_package("hqq")
from hqq.core.quantize import HQQBackend, HQQLinear, hqq_base_quant_config  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
D, FF = S.pick((4096, 11008), (128, 192))
B, T, STEPS = S.pick((2, 512, 8), (2, 8, 2))

spec = {
    "q": (D, D, 4, 64),
    "o": (D, D, 4, 64),
    "gate": (D, FF, 3, 64),
    "down": (FF, D, 2, 16),
}
layers, originals = {}, {}
for name, (i, o, bits, group) in spec.items():
    lin = torch.nn.Linear(i, o, bias=False).half()
    torch.nn.init.normal_(lin.weight, std=i**-0.5)
    originals[name] = lin.weight.detach().clone().to(dev)
    cfg = hqq_base_quant_config(nbits=bits, group_size=group)
    layers[name] = HQQLinear(lin, cfg, compute_dtype=dt, device=dev)
    w = layers[name].dequantize()
    print(
        f"{name}: {bits}-bit group {group}",
        tuple(layers[name].W_q.shape),
        f"|W - W_hqq| / |W| {((w.float() - originals[name].float()).norm() / originals[name].float().norm()).item():.3f}",
    )


def mlp_block(x):
    h = layers["o"](layers["q"](x))
    return layers["down"](torch.nn.functional.silu(layers["gate"](h)))


def mlp_ref(x, weights):
    h = x @ weights["q"].t() @ weights["o"].t()
    return torch.nn.functional.silu(h @ weights["gate"].t()) @ weights["down"].t()


deq = {k: m.dequantize() for k, m in layers.items()}

# inference: the compiled forward, a prefill then single-token steps (new shapes: recompiles)
HQQLinear.set_backend(HQQBackend.PYTORCH_COMPILE)
with torch.no_grad():
    x = torch.randn(B, T, D, device=dev, dtype=dt) * 0.5
    y = mlp_block(x)
    print(
        "compiled forward",
        tuple(y.shape),
        f"vs dequantised {S.rel_err(y, mlp_ref(x, deq)):.1e}",
        f"vs original {S.rel_err(y, mlp_ref(x, originals)):.1e}",
    )
    tok = x[:, -1:]
    for _ in range(STEPS):
        tok = torch.nn.functional.rms_norm(mlp_block(tok).float(), (D,)).to(dt)
    print("decode", STEPS, "steps", tuple(tok.shape))

# training through the frozen quantised layers: compiled matmuls in forward and backward
HQQLinear.set_backend(HQQBackend.PYTORCH_BACKPROP_COMPILE)
xg = (torch.randn(B, T, D, device=dev, dtype=dt) * 0.5).requires_grad_()
y = mlp_block(xg)
dy = torch.randn_like(y)
y.backward(dy)
xr = xg.detach().float().requires_grad_()
mlp_ref(xr, {k: w.float() for k, w in deq.items()}).backward(dy.float())
print("compiled backprop", f"grad x vs dequantised {S.rel_err(xg.grad, xr.grad):.1e}")
torch.cuda.synchronize()
print("hqq quantize + compile ok")
