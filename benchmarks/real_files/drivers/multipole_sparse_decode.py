"""Corpus driver (kx's code): Multipole Attention's dynamic sparse decode attention
(SqueezeAILab/MultipoleAttention, multipoleattention/kernel_wrappers.py + kernels.py:
compute_k_idx_optimized's Triton compaction kernel turning a per-KV-head keep mask into packed
key indices, per-head counts and a block prefix sum; _attention_qk_gen, a torch.autograd.Function
that picks its tiles from torch.cuda.get_device_name, launches a split-KV kernel over 2048-key
blocks (the grid's second axis is the data-dependent number of kept-key blocks, a GPU tensor;
each program finds its KV head with a loop over the head-start table and gathers keys through
the packed indices, GQA query groups as the M tile) writing bf16 partial outputs, then a
reduction kernel that merges them with an incoming (out, max, denom) online-softmax state) run
the way the repo's patched Qwen3 attention runs one decode step: a dense pass over the recent
uncompressed keys with an all-ones mask, then a sparse pass over the clustered prefix keys kept
by the centroid lookup (here a per-head random keep mask with different densities), merged into
the first pass's state. Checked: the compacted indices against torch.nonzero, and the output
against fp32 softmax attention over exactly the kept keys (+ all recent keys), per KV head. Inputs fp16 (the model may run bf16; see the dt line)."""

import math

import _corpus19_support as S
import torch

S.install_multipole_standins()
from multipoleattention.kernel_wrappers import compute_k_idx_optimized, dynamic_sparse_attention  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
_name = torch.cuda.get_device_name()
if not any(g in _name for g in ("A6000", "A5000", "A100", "H100", "L40S")):
    # the wrapper's tile table names only these GPUs (else it asserts); an H200 is an sm_90 H100
    # with more memory, so it is handed the H100 tiles
    print(f"{_name}: not in the wrapper's GPU table, using its H100 tiles")
    torch.cuda.get_device_name = lambda *a, **k: "NVIDIA H100 (as " + _name + ")"
KVH, GROUPS, D, N_CLUSTER, N_RECENT = S.pick((8, 4, 128, 32768, 700), (2, 2, 64, 5000, 40))
dt = torch.float16  # Triton 3.8's interpreter mis-reads bf16 q/k/v here (fp16 and fp32 agree with torch); the kernels keep their bf16 partials
q = torch.randn(1, KVH, GROUPS, D, device=dev, dtype=dt)
k_cl, v_cl = (torch.randn(1, KVH, N_CLUSTER, D, device=dev, dtype=dt) for _ in range(2))
k_in, v_in = (torch.randn(1, KVH, N_RECENT, D, device=dev, dtype=dt) for _ in range(2))
density = torch.linspace(0.05, 0.6, KVH, device=dev)[:, None]
keep = torch.rand(KVH, N_CLUSTER, device=dev) < density  # what centroid_lookup would keep, per KV head
sm_scale = 1.0 / math.sqrt(D)

o = torch.zeros(1, KVH, GROUPS, D, device=dev, dtype=torch.float32)
l_sum = torch.zeros(1, KVH, GROUPS, device=dev, dtype=torch.float32)
m = torch.zeros(1, KVH, GROUPS, device=dev, dtype=torch.float32) - float("inf")

dummy = torch.ones(1, KVH, N_RECENT, dtype=torch.bool, device=dev)
k_idx, head_kv_len, num_kv_blocks, head_start_block = compute_k_idx_optimized(dummy)
out_in, mx, denom = dynamic_sparse_attention(
    q, k_in, v_in, k_idx, head_kv_len, num_kv_blocks, head_start_block, o, m, l_sum, sm_scale=sm_scale
)

k_idx, head_kv_len, num_kv_blocks, head_start_block = compute_k_idx_optimized(keep.unsqueeze(0))
idx_ok = all(
    torch.equal(k_idx[0, h, : int(head_kv_len[0, h])], keep[h].nonzero().flatten()) for h in range(KVH)
) and torch.equal(head_kv_len[0].long(), keep.sum(1))
out, mx, denom = dynamic_sparse_attention(
    q, k_cl, v_cl, k_idx, head_kv_len, num_kv_blocks, head_start_block, out_in, mx, denom, sm_scale=sm_scale
)

errs = []
for h in range(KVH):
    kk = torch.cat([k_in[0, h], k_cl[0, h][keep[h]]]).float()
    vv = torch.cat([v_in[0, h], v_cl[0, h][keep[h]]]).float()
    ref = torch.softmax(q[0, h].float() @ kk.t() * sm_scale, -1) @ vv
    errs.append(S.rel_err(out[0, h], ref))
print(
    f"{KVH} KV heads x {GROUPS} query groups, D {D}: {N_RECENT} recent + {N_CLUSTER} clustered keys, kept per head "
    f"{keep.sum(1).tolist()} ({int(num_kv_blocks)} KV blocks); indices match nonzero: {idx_ok}; out rel err max {max(errs):.1e}"
)
assert idx_ok and max(errs) < 3e-2, (idx_ok, errs)
torch.cuda.synchronize()
print("multipole_sparse_decode ok")
