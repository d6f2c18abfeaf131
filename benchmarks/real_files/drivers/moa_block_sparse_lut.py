"""Corpus driver (kx's code): thu-nics/MoA's block-sparse attention kernels driven by a lookup
table (MoA/kernels/block_sparse_attention_prefill.py: sparse_attention_prefill ->
_sparse_attention_prefill_fwd_kernel, a flash-attention loop over the key blocks listed per
(head, query block) in the LUT, repeated ids skipped, causal and length masks; and
_sparse_attention_decode -> _sparse_attention_decode_fwd_kernel, one program per (listed key
block, head) writing partial outputs / sums / maxima merged on the host): fp16, 1 x 32 heads x
8192 tokens, head dim 128, per-head layouts of a 1-2 block attention sink plus a local window of
4-64 blocks of 64 (MoA's elastic per-head spans) turned into a padded LUT; then one decode query
per head over the same 8192-token cache with each head's own sink + local block list. Both vs
kx's dense masked attention in float32."""

import math

import _corpus14_support as S
import torch
from MoA.kernels.block_sparse_attention_prefill import (  # noqa: E402
    _sparse_attention_decode,
    sparse_attention_prefill,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
Z, H, N, D = S.pick((1, 32, 8192, 128), (1, 2, 256, 32))
BLK = 64
NB = math.ceil(N / BLK)
sm_scale = 1 / math.sqrt(D)
g = torch.Generator().manual_seed(0)
sink = torch.randint(1, 3, (H,), generator=g).tolist()
local = torch.randint(4, 65, (H,), generator=g).clamp(max=NB).tolist() if not S.small() else [2, 3][:H]

# per-head layout and LUT (kx's code: MoA builds its LUT from a calibrated layout the same way)
allowed = torch.zeros(H, NB, NB, dtype=torch.bool)
rows = []
for h in range(H):
    head_rows = []
    for i in range(NB):
        ids = sorted(set(range(min(sink[h], i + 1))) | set(range(max(0, i + 1 - local[h]), i + 1)))
        allowed[h, i, ids] = True
        head_rows.append(ids)
    rows.append(head_rows)
nnz = max(len(r) for hr in rows for r in hr)
lut = torch.tensor([[r + [r[-1]] * (nnz - len(r)) for r in hr] for hr in rows], dtype=torch.int64, device=dev)

q, k, v = (torch.randn(Z, H, N, D, device=dev, dtype=dt) for _ in range(3))
out = sparse_attention_prefill(q, k, v, sm_scale, lut)
want = S.block_mask_attention_ref(q, k, v, sm_scale, allowed.to(dev), BLK)
print(
    f"prefill: LUT {tuple(lut.shape)}, density {allowed.float().mean().item():.3f}, rel err {S.rel_err(out, want):.1e}"
)

# decode: one new query per head over the full cache, each head's sink + local key blocks
qd = torch.randn(Z, H, 1, D, device=dev, dtype=dt)
dec_ids = [sorted(set(range(sink[h])) | set(range(NB - local[h], NB))) for h in range(H)]
tc = max(len(x) for x in dec_ids)
dec_lut = torch.tensor([[x + [x[-1]] * (tc - len(x)) for x in dec_ids]] * Z, dtype=torch.int64, device=dev)
out_d = _sparse_attention_decode.apply(qd, k, v, sm_scale, dec_lut)
dec_allowed = torch.zeros(H, 1, NB, dtype=torch.bool, device=dev)
for h in range(H):
    dec_allowed[h, 0, dec_lut[0, h].unique()] = True
ref_d = torch.empty_like(qd)
for h in range(H):
    cols = dec_allowed[h, 0].repeat_interleave(BLK)[:N]
    # a repeated LUT entry is merged as another block of the same keys: weight those keys by their count
    counts = torch.bincount(dec_lut[0, h], minlength=NB).repeat_interleave(BLK)[:N].float()
    s = (qd[:, h].float() @ k[:, h].float().transpose(-1, -2)) * sm_scale
    w = torch.exp(s - s.max()) * counts
    w = w * cols
    ref_d[:, h] = ((w / w.sum(-1, keepdim=True)) @ v[:, h].float()).to(dt)
print(f"decode: {tc} key blocks per head, rel err {S.rel_err(out_d, ref_d):.1e}")
torch.cuda.synchronize()
print("moa_block_sparse_lut ok")
