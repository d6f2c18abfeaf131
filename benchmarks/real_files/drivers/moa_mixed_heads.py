"""Corpus driver (kx's code): thu-nics/MoA's mixture-of-sparse-attention kernels, each head with
its own span: prefill through _sparse_attention_moa_prefill
(block_sparse_attention_prefill.py: _sparse_attention_prefill_moa_fwd_kernel, a while loop over
key blocks that skips those between a head's sink blocks and its local window, read from
per-head int tensors) and a decode loop through _mixture_of_sparse_attention_decode
(flash_decoding_moa.py: head_index_to_split_index maps 64-token KV splits of a ragged,
concatenated per-head cache to heads; _moa_flash_decode_split_fwd_stage1 per (batch, split), then
_flash_decode_split_fwd_stage2's scatter-add merge): fp16, batch 2, 32 heads of 128, an
8192-token prompt, per-head sink 1-2 blocks and local windows of 4-64 blocks of 64; then 16
decode steps where the host keeps every head's cache at sink + local tokens (appending the new
key / value and dropping the oldest local one) and rebuilds the concatenated cache. Prefill and
every step vs kx's dense masked attention in float32. The decode error is large where a head
spans several splits: upstream's stage 2 weights each split by exp(m) * l where its m already
holds log2(l) (stage 1 adds it), so l counts twice; the driver prints the error and goes on (the
MoA model code no longer calls this decode path)."""

import math

import _corpus14_support as S
import torch
from MoA.kernels.block_sparse_attention_prefill import _sparse_attention_moa_prefill  # noqa: E402
from MoA.kernels.flash_decoding_moa import _mixture_of_sparse_attention_decode  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
Z, H, N, D, STEPS = S.pick((2, 32, 8192, 128, 16), (1, 2, 256, 32, 3))
BLK = 64
NB = math.ceil(N / BLK)
sm_scale = 1 / math.sqrt(D)
g = torch.Generator().manual_seed(0)
sink = torch.randint(1, 3, (H,), generator=g)
local = (
    torch.randint(4, 65, (H,), generator=g).clamp(max=NB - 2) if not S.small() else torch.tensor([2, 3][:H])
)

q, k, v = (torch.randn(Z, H, N, D, device=dev, dtype=dt) for _ in range(3))
out = _sparse_attention_moa_prefill.apply(
    q, k, v, sm_scale, sink.to(dev, torch.int32), local.to(dev, torch.int32)
)
allowed = torch.zeros(H, NB, NB, dtype=torch.bool)
for h in range(H):
    for i in range(NB):
        allowed[h, i, : min(int(sink[h]), i + 1)] = True
        allowed[h, i, max(0, i + 1 - int(local[h])) : i + 1] = True
want = S.block_mask_attention_ref(q, k, v, sm_scale, allowed.to(dev), BLK)
print(f"prefill: density {allowed.float().mean().item():.3f}, rel err {S.rel_err(out, want):.1e}")

# per-head caches after the prompt: sink tokens + the last local tokens (host-side bookkeeping)
sink_t, local_t = (sink * BLK).tolist(), (local * BLK).tolist()
caches = [
    (
        torch.cat([k[:, h, : sink_t[h]], k[:, h, N - local_t[h] :]], 1),
        torch.cat([v[:, h, : sink_t[h]], v[:, h, N - local_t[h] :]], 1),
    )
    for h in range(H)
]
head_index = torch.tensor([0] + [a + b for a, b in zip(sink_t, local_t)], device=dev).cumsum(0)
worst = 0.0
for step in range(STEPS):
    qn, kn, vn = (torch.randn(Z, H, 1, D, device=dev, dtype=dt) for _ in range(3))
    for h in range(H):  # slide each head's local window by one token
        ck, cv = caches[h]
        s = sink_t[h]
        caches[h] = (
            torch.cat([ck[:, :s], ck[:, s + 1 :], kn[:, h]], 1),
            torch.cat([cv[:, :s], cv[:, s + 1 :], vn[:, h]], 1),
        )
    K = torch.cat([c[0] for c in caches], 1).contiguous()  # (Z, sum of spans, D)
    V = torch.cat([c[1] for c in caches], 1).contiguous()
    o = _mixture_of_sparse_attention_decode.apply(qn, K, V, head_index, sm_scale, False)
    ref = torch.stack(
        [
            torch.softmax((qn[:, h].float() @ caches[h][0].float().transpose(-1, -2)) * sm_scale, -1)
            @ caches[h][1].float()
            for h in range(H)
        ],
        1,
    )
    worst = max(worst, S.rel_err(o, ref))
print(
    f"decode: {STEPS} steps over {int(head_index[-1])} cached tokens in all, worst step rel err {worst:.1e}"
)
torch.cuda.synchronize()
print("moa_mixed_heads ok")
