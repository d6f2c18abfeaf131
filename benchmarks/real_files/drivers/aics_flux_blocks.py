"""Corpus driver (kx's code): ai-compiler-study/triton-kernels' Triton Flux blocks
(triton_kernels/modules/blocks.py: DoubleStreamBlock / SingleStreamBlock whose linears are
triton_kernels.kernels.linear (a persistent-free tiled GEMM with fused bias and tanh-GELU epilogue),
whose QK RMSNorms, LayerNorm + (1 + scale) * x + shift modulation and 3-axis RoPE are Triton kernels
(kernels/normalization.py, kernels/positional_embedding.py) and whose attention is the autotuned
Triton flash-attention forward (kernels/attention.py)) as a Flux-dev-shaped trunk: hidden 3072,
24 heads of 128, MLP ratio 4, RoPE axes (16, 56, 56), 2 double-stream + 4 single-stream blocks
with random weights, bf16, batch 1 with 1024 image tokens (a 32 x 32 patch grid) and 512 text
tokens; the same blocks' PyTorch version from the same repository (triton_kernels/flux/layers.py,
Flux's own layers) gets the same weights and is the reference, run in fp32."""

import _corpus13_support as S
import torch
from triton_kernels.flux.layers import DoubleStreamBlock as RefDouble
from triton_kernels.flux.layers import EmbedND
from triton_kernels.flux.layers import SingleStreamBlock as RefSingle
from triton_kernels.modules import DoubleStreamBlock, SingleStreamBlock

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
HID, HEADS, AXES = S.pick((3072, 24, (16, 56, 56)), (256, 4, (16, 24, 24)))
N_DOUBLE, N_SINGLE, GRID, TXT = S.pick((2, 4, 32, 512), (1, 1, 8, 64))


def init(m):
    with torch.no_grad():
        for n, p in m.named_parameters():
            if n.endswith("scale"):
                p.uniform_(0.5, 1.5)  # the QK-norm gains
            else:
                p.normal_(0, 0.02 if p.dim() > 1 else 0.01)
    return m


ref_blocks = [init(RefDouble(HID, HEADS, 4.0, qkv_bias=True)) for _ in range(N_DOUBLE)]
ref_blocks += [init(RefSingle(HID, HEADS, 4.0)) for _ in range(N_SINGLE)]
tri_blocks = [DoubleStreamBlock(HID, HEADS, 4.0, qkv_bias=True) for _ in range(N_DOUBLE)]
tri_blocks += [SingleStreamBlock(HID, HEADS, 4.0) for _ in range(N_SINGLE)]
for r, t in zip(ref_blocks, tri_blocks):
    t.load_state_dict(r.state_dict())
ref_blocks = [b.to(dev).float().eval() for b in ref_blocks]
tri_blocks = [b.to(dev, dt).eval() for b in tri_blocks]

img_ids = torch.zeros(GRID, GRID, 3)
img_ids[..., 1] = torch.arange(GRID)[:, None]
img_ids[..., 2] = torch.arange(GRID)[None, :]
ids = torch.cat([torch.zeros(TXT, 3), img_ids.flatten(0, 1)])[None].to(dev)
pe = EmbedND(HID // HEADS, 10000, list(AXES))(ids)
img = torch.randn(1, GRID * GRID, HID, device=dev)
txt = torch.randn(1, TXT, HID, device=dev)
vec = torch.randn(1, HID, device=dev)


def trunk(blocks, img, txt, vec, pe):
    for b in blocks[:N_DOUBLE]:
        img, txt = b(img=img, txt=txt, vec=vec, pe=pe)
    x = torch.cat((txt, img), 1)
    for b in blocks[N_DOUBLE:]:
        x = b(x, vec=vec, pe=pe)
    return x[:, txt.shape[1] :]


with torch.inference_mode():
    out = trunk(tri_blocks, img.to(dt), txt.to(dt), vec.to(dt), pe)
    ref = trunk(ref_blocks, img, txt, vec, pe)
print(
    f"{N_DOUBLE} double + {N_SINGLE} single blocks, {GRID * GRID} img + {TXT} txt tokens: rel err {S.rel_err(out, ref):.1e}"
)
torch.cuda.synchronize()
print("aics_flux_blocks ok")
