"""Corpus driver (kx's code): svg-project/Sparse-VideoGen's head placement kernels (SVG v1,
svg/models/wan/placement.py: wan_sparse_head_placement -> a Triton kernel that, per (cfg, head)
program column, reads the profiled head type from best_mask_idx and either copies q / k / v
(spatial heads) or transposes the video tokens from frame-major to token-major order
(temporal heads) behind a fixed text prefix, so the temporal heads' attention becomes
block-local; wan_hidden_states_placement undoes it on the attention output), as the SVG attention
processor runs them around attention: 2 CFG branches x 24 heads x (226 text + 11 frames x 4080
tokens) x 128 in bf16, random spatial / temporal head labels. Checks: both kernels against the
repository's PyTorch references (ref_wan_sparse_head_placement / ref_wan_hidden_states_placement)
bit for bit, and place -> attention -> unplace against attention without placement on a cut of
the sequence."""

import _corpus13_support as S
import torch

S.bare_package("svg")  # not its __init__ (model pipelines)
from svg.models.wan.placement import (  # noqa: E402
    ref_wan_hidden_states_placement,
    ref_wan_sparse_head_placement,
    wan_hidden_states_placement,
    wan_sparse_head_placement,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
CFG, HEADS, CTX, FRAMES, FRAME, HD = S.pick((2, 24, 226, 11, 4080, 128), (2, 3, 20, 3, 50, 32))
L = CTX + FRAMES * FRAME
q, k, v = (torch.randn(CFG, HEADS, L, HD, device=dev, dtype=dt) for _ in range(3))
head_kind = torch.randint(0, 2, (CFG, HEADS), device=dev)

outs = [torch.empty_like(t) for t in (q, k, v)]
wan_sparse_head_placement(q, k, v, *outs, head_kind, CTX, FRAMES, FRAME)
refs = ref_wan_sparse_head_placement(q, k, v, head_kind, CTX, FRAMES, FRAME)
same = all(torch.equal(a, b) for a, b in zip(outs, refs))
back = wan_hidden_states_placement(outs[0], torch.empty_like(q), head_kind, CTX, FRAMES, FRAME)
ref_back = torch.empty_like(q)
ref_wan_hidden_states_placement(refs[0], ref_back, head_kind, CTX, FRAMES, FRAME)
print(
    f"placement == reference {same}, inverse == reference {torch.equal(back, ref_back)}, round trip {torch.equal(back, q)}"
)

cut = CTX + FRAMES * S.pick(512, FRAME)  # attention on a shorter clip (same kernels, fewer tokens)
FR = (cut - CTX) // FRAMES
qs, ks, vs = (t[:, :, :cut].contiguous() for t in (q, k, v))
placed = [torch.empty_like(t) for t in (qs, ks, vs)]
wan_sparse_head_placement(qs, ks, vs, *placed, head_kind, CTX, FRAMES, FR)
o = torch.nn.functional.scaled_dot_product_attention(*placed)
o = wan_hidden_states_placement(o, torch.empty_like(o), head_kind, CTX, FRAMES, FR)
ref = torch.nn.functional.scaled_dot_product_attention(qs, ks, vs)
print(f"place -> attention -> unplace ({cut} tokens): rel err {S.rel_err(o, ref):.1e}")
torch.cuda.synchronize()
print("svg_wan_placement ok")
