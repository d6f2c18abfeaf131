"""Corpus driver (kx's code): mit-han-lab/x-attention's XAttention block selection in Triton
(xattn/src/kernels.py: flat_group_gemm_fuse_reshape (antidiagonal-strided q k^T: every stride-th
query row against every stride-th key row, reshaped on the fly, causal per chunk) and
softmax_fuse_block_sum (an online softmax over each strided row, summed into
(block / stride)-sized blocks, causal and non-causal kernels); xattn/src/utils.py:
find_blocks_chunked, choosing per query block the fewest key blocks whose softmax mass reaches the
threshold) as Xattention_prefill's estimation step drives them for a long-context prefill: 1 x
32 heads x 16,384 tokens x 128, bf16, block 128, stride 8, threshold 0.9, chunks of 8,192 query
tokens against the whole key range. xattn_estimate itself enables its Triton path only when the GPU
name contains "100", so this driver launches the two kernels per chunk itself (with the arguments
xattn_estimate passes) and runs xattn_estimate with use_triton=False as the reference for the
block sums and masks. The selected blocks then feed a block-masked SDPA in place of the CUDA
block_sparse_attn kernel (a stand-in module), compared with dense causal attention."""

import math

import _corpus9_support as S
import torch
import torch.nn.functional as F

S.install_block_sparse_attn_standin()
S.bare_package("xattn.src")
from xattn.src.kernels import flat_group_gemm_fuse_reshape, softmax_fuse_block_sum  # noqa: E402
from xattn.src.utils import find_blocks_chunked  # noqa: E402
from xattn.src.Xattention import xattn_estimate  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, L, D = S.pick((32, 16384, 128), (2, 1024, 32))
BLOCK, STRIDE, THRESH = S.pick(128, 64), S.pick(8, 4), 0.9
CHUNK = S.pick(8192, 512)

# queries / keys with some structure (a few heavy key positions) so the selection is not uniform
q = torch.randn(1, H, L, D, device=dev, dtype=dt)
k = torch.randn(1, H, L, D, device=dev, dtype=dt)
k[:, :, :: S.pick(997, 97)] += 3 * q[:, :, -1:].mean(2, keepdim=True)
v = torch.randn(1, H, L, D, device=dev, dtype=dt)

rb = BLOCK // STRIDE  # block size in the strided space
rc = CHUNK // STRIDE
n_blocks = L // BLOCK
sums, masks = [], []
for c in range(L // CHUNK):
    start, end = c * rc, c * rc + rc
    w = flat_group_gemm_fuse_reshape(q[:, :, c * CHUNK : (c + 1) * CHUNK], k, STRIDE, start, end, is_causal=True)
    s = softmax_fuse_block_sum(
        w, rb, min(4096, rb), start, end, L // STRIDE, 1.4426950408889634 / math.sqrt(D) / STRIDE, is_causal=True
    )
    sums.append(s)
    masks.append(find_blocks_chunked(s, c * (CHUNK // BLOCK), THRESH, None, decoding=False, mode="prefill", causal=True))
attn_sums = torch.cat(sums, dim=-2)
mask = torch.cat(masks, dim=-2)
mask &= torch.ones(n_blocks, n_blocks, dtype=torch.bool, device=dev).tril()

ref_sums, ref_mask = xattn_estimate(
    q, k, block_size=BLOCK, stride=STRIDE, threshold=THRESH, chunk_size=CHUNK, use_triton=False, causal=True
)
print(
    "estimate",
    tuple(attn_sums.shape),
    f"block sums rel err {S.rel_err(attn_sums, ref_sums):.1e}",
    f"density {mask.float().mean().item():.3f} (reference {ref_mask.float().mean().item():.3f})",
    f"mask agreement {(mask == ref_mask).float().mean().item():.3f}",
)

# block-sparse attention with the selected blocks (SDPA with the expanded mask) vs dense causal
token_mask = mask.repeat_interleave(BLOCK, -1).repeat_interleave(BLOCK, -2)
token_mask &= torch.ones(L, L, dtype=torch.bool, device=dev).tril()
sparse = F.scaled_dot_product_attention(q, k, v, attn_mask=token_mask)
dense = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("block-sparse vs dense attention", f"rel err {S.rel_err(sparse, dense):.2e}")
torch.cuda.synchronize()
print("xattention estimate ok")
