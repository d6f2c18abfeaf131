"""Corpus driver (kx's code): AutoGPTQ/AutoGPTQ's second Triton GPTQ layer
(auto_gptq/nn_modules/qlinear/qlinear_tritonv2.py: QuantLinear, the same int32 packing as the
first, but its forward and backward go through triton_utils/dequant.py: dequant_kernel_248, a
@triton.autotune'd kernel (X_BLOCK / warps, keyed on the number of weight elements) that expands
the packed codes, per-group scales and zero points (through g_idx) into a fp16 weight, followed by
a torch matmul; the backward dequantises again and multiplies by the transpose) as a GPTQ-quantised
model's attention and MLP projections use it: a Llama-style block at d 4096 (q / k / v / o
4096 -> 4096, gate / up 4096 -> 11008, down 11008 -> 4096), 4-bit group 128 for attention,
act-order for the MLP, a 2-bit and an 8-bit projection, a fp16 prefill of 2 x 1024 tokens, then a
32-step decode loop of single tokens (M = 2, the dequantise-then-matmul path for every step),
then a backward to the input through the block (the trainable path). Outputs and input gradients
are compared with the dequantised weights in PyTorch."""

import _corpus9_support as S
import torch
import torch.nn.functional as F

S.bare_package("auto_gptq.nn_modules")
from auto_gptq.nn_modules.qlinear.qlinear_tritonv2 import QuantLinear  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, FF, H = S.pick((4096, 11008, 32), (64, 96, 2))
GROUP = S.pick(128, 32)
B, T, STEPS = S.pick((2, 1024, 32), (2, 6, 3))


def quantised(in_f, out_f, bits, act_order=False):
    lin = torch.nn.Linear(in_f, out_f, bias=False)
    torch.nn.init.normal_(lin.weight, std=in_f**-0.5)
    scales, zeros, g_idx = S.gptq_rtn_params(lin.weight.data, bits, GROUP, act_order=act_order)
    w_deq = S.gptq_dequantize(lin.weight.data, scales, zeros, g_idx, bits)
    q = QuantLinear(bits, GROUP, in_f, out_f, bias=False, trainable=True)
    q.pack(lin, scales, zeros, g_idx)
    return q.to(dev), w_deq.to(dev).half()


spec = {
    "q": (D, D, 4, False),
    "k": (D, D, 4, False),
    "v": (D, D, 8, False),
    "o": (D, D, 4, False),
    "gate": (D, FF, 4, True),
    "up": (D, FF, 4, True),
    "down": (FF, D, 2, True),
}
built = {name: quantised(*args) for name, args in spec.items()}
Q = {k: v[0] for k, v in built.items()}
W = {k: v[1].float() for k, v in built.items()}


def block(x, lin, causal=True):
    Bx, Tx, _ = x.shape
    h = F.rms_norm(x, (D,))
    q, k, v = (lin(n, h).view(Bx, Tx, H, -1).transpose(1, 2) for n in "qkv")
    a = F.scaled_dot_product_attention(q, k, v, is_causal=causal).transpose(1, 2).reshape(Bx, Tx, D)
    x = x + lin("o", a)
    h = F.rms_norm(x, (D,))
    return x + lin("down", F.silu(lin("gate", h)) * lin("up", h)), (k, v)


def tri(name, x):
    return Q[name](x)


def ref(name, x):
    return (x.float() @ W[name].t()).to(x.dtype)


x = (torch.randn(B, T, D, device=dev) * 0.5).half().requires_grad_()
with torch.no_grad():
    y, _ = block(x, tri)
    yr, _ = block(x.float(), lambda n, t: t @ W[n].t())
print("prefill", tuple(y.shape), f"rel err {S.rel_err(y, yr):.1e}")

# decode: one token per step through the quantised projections (no KV cache: the projections are
# the point); every step is a new M = B dequantise + matmul
with torch.no_grad():
    tok = x[:, -1:].detach()
    for step in range(STEPS):
        tok, _ = block(tok, tri, causal=False)
        tok = F.rms_norm(tok.float(), (D,)).half()
    print("decode", STEPS, "steps", tuple(tok.shape), f"|x| {tok.float().abs().mean().item():.3f}")

# backward through the block to its input
y, _ = block(x, tri)
dy = torch.randn_like(y)
y.backward(dy)
gx = x.grad.clone()
xr = x.detach().float().requires_grad_()
yr, _ = block(xr, lambda n, t: t @ W[n].t())
yr.backward(dy.float())
print("backward", f"grad x rel err {S.rel_err(gx, xr.grad):.1e}")
torch.cuda.synchronize()
print("autogptq triton v2 qlinear ok")
