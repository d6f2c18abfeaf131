"""Corpus driver (kx's code): Vahe1994/AQLM's QuantizedLinear (inference_lib/src/aqlm/
inference.py) with its Triton kernel (inference_kernels/triton_kernel.py: _aqlm_gemv_simple under
@triton.autotune over 20 num_stages x num_warps configs keyed on the layer's shapes, launched once
per input row by aqlm_gemm_stupid) in a token-by-token decode loop: a small Llama-like decoder
(kx's code: 4 layers, d 2048, 16 heads of 128, SwiGLU 5632, RMSNorm, a growing KV cache, vocab
32000, fp16) whose seven projections per layer are AQLM-quantised layers with random codes,
codebooks and scales (as a quantised checkpoint would fill them): attention projections with 1
codebook of 2^12 codes over groups of 8 inputs, MLP projections with 2 codebooks of 2^8 over groups
of 16 (both off the CUDA kernels' 1x16 / 2x8-in-8 / 1x8 formats, so kernel_selector picks
triton_matmul). A 24-token prompt (more than 6 rows: the 'gemm' rule, dequantize_gemm in torch)
then 48 greedy steps of one token (<= 6 rows: the Triton GEMV each step), `.item()` of each
token; then QuantizedLinear's autograd Function backward (a GEMV's input gradient through
get_backward_pass_kernel: transposed codebooks, dequantize_gemm). A decode loop that launches
Triton kernels every step."""

import math

import _corpus6_support as S
import torch
import torch.nn.functional as F
from aqlm import QuantizedLinear
from torch import nn

torch.manual_seed(0)
dev, dtype = "cuda", torch.float16
V, D, H, FF, L = S.pick((32000, 2048, 16, 5632, 4), (300, 64, 2, 128, 2))


def qlinear(i, o, num_codebooks, nbits, in_group):
    layer = QuantizedLinear(
        i,
        o,
        in_group_size=in_group,
        out_group_size=1,
        num_codebooks=num_codebooks,
        nbits_per_codebook=nbits,
        bias=False,
        device=dev,
        dtype=dtype,
    )
    with torch.no_grad():
        layer.codebooks.normal_(0, 1.0 / math.sqrt(i))
        hi = 2 ** (nbits - 1) if nbits in (8, 16) else 2**nbits
        lo = -hi if nbits in (8, 16) else 0
        layer.codes.copy_(torch.randint(lo, hi, layer.codes.shape, device=dev).to(layer.codes.dtype))
        layer.scales.uniform_(0.5, 1.5)
    return layer


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(D), nn.RMSNorm(D)
        self.q, self.k, self.v, self.o = (qlinear(D, D, 1, 12, 8) for _ in range(4))
        self.gate, self.up = qlinear(D, FF, 2, 8, 16), qlinear(D, FF, 2, 8, 16)
        self.down = qlinear(FF, D, 2, 8, 16)

    def forward(self, x, cache):
        b, t, _ = x.shape
        h = self.n1(x)
        q, k, v = (p(h).view(b, t, H, D // H).transpose(1, 2) for p in (self.q, self.k, self.v))
        if cache:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), (k, v)


emb = nn.Embedding(V, D).to(dev, dtype)
layers = nn.ModuleList(Layer() for _ in range(L)).to(dev, dtype)
norm, head = nn.RMSNorm(D).to(dev, dtype), nn.Linear(D, V, bias=False).to(dev, dtype)


@torch.no_grad()
def forward(idx, caches):
    x = emb(idx)
    new = []
    for layer, cache in zip(layers, caches):
        x, kv = layer(x, cache)
        new.append(kv)
    return head(norm(x[:, -1])).float(), new


prompt = torch.randint(0, V, (1, S.pick(24, 8)), device=dev)
logits, caches = forward(prompt, [None] * L)
tokens = []
for _ in range(S.pick(48, 4)):
    nxt = logits.argmax(-1, keepdim=True)
    tokens.append(nxt.item())
    logits, caches = forward(nxt, caches)
print("decoded", len(tokens), tokens[:8])

layer = layers[0].q
x = torch.randn(2, D, device=dev, dtype=dtype, requires_grad=True)
y = layer(x)
y.float().sum().backward()
torch.cuda.synchronize()
print("aqlm decode ok", tuple(y.shape), tuple(x.grad.shape))
