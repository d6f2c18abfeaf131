"""Corpus driver (kx's code): microsoft/SeerAttention's attention-with-pooling kernel for packed
varlen batches (seer_attn/kernels/varlen/attn_pooling_qkv_varlen_1d.py: attn_pooling_qkv_varlen,
one Triton launch that computes causal GQA flash attention and, per query token, the block-max-
pooled attention map over KV blocks (Pool1D, filled with -65504 and clamped)), used as
seer_attn/decode_sparse/qwen3/modeling_qwen3_seerattn_training.py uses it to distil the
AttnGate: q / k / v of a Qwen3-8B-like layer (32 query heads over 8 KV heads of 128, bf16) for 4
packed sequences (cu_seqlens, 4096 / 1000 / 2048 / 333 tokens), block size 64; the ground truth
max-pooled over each KV group (F.max_pool3d), masked to the causal blocks, normalised, and a KL
loss per sequence against the log-softmax of a gate's block scores from the token 10% in
(loss_slice_ratio), as the training forward computes gate_loss. The gate is a stand-in written
here (kx's code: linear projections of the query and of block-mean-pooled keys, a block
position bias); 3 AdamW steps on it (forward through the Triton kernel each step, backward
through the gate only; the kernel has no backward, the base model is frozen there too). Also
checks the attention output of the kernel against an SDPA reference on the first sequence.
Exercises: `(cu_seqlens[1:] - cu_seqlens[:-1]).cpu()` host read, grid (cdiv(max_seqlen, 64),
heads, batch), GQA ratio as a runtime argument, an in-place clamp_ on the pooled map."""

import math

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("seer_attn")
S.bare_package("seer_attn.kernels")
S.bare_package("seer_attn.kernels.varlen")
from seer_attn.kernels.varlen.attn_pooling_qkv_varlen_1d import attn_pooling_qkv_varlen  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, KVH, D = S.pick((32, 8, 128), (4, 2, 64))
BLOCK = S.pick(64, 16)
lens = S.pick([4096, 1000, 2048, 333], [40, 17])
bsz, total, max_seqlen = len(lens), sum(lens), max(lens)
cu = torch.tensor([0] + lens, device=dev, dtype=torch.int32).cumsum(0).to(torch.int32)
nb = math.ceil(max_seqlen / BLOCK)
groups = H // KVH


class Gate(torch.nn.Module):
    """Stand-in for SeerAttention's AttnGate: per-KV-head block scores from pooled keys."""

    def __init__(self, d=D, hidden=128):
        super().__init__()
        self.q = torch.nn.Linear(d * groups, hidden)
        self.k = torch.nn.Linear(d, hidden)
        self.pos = torch.nn.Parameter(torch.zeros(nb))

    def forward(self, q, k, b):
        s, e = lens[b], cu[b].item()
        qs = q[e : e + s].float().view(s, KVH, groups * D)
        ks = F.pad(k[e : e + s].float(), (0, 0, 0, 0, 0, nb * BLOCK - s)).view(nb, BLOCK, KVH, D).mean(1)
        scores = torch.einsum("shc,nhc->hsn", self.q(qs), self.k(ks)) / math.sqrt(128) + self.pos
        causal = torch.arange(nb, device=dev)[None, :] <= (torch.arange(s, device=dev) // BLOCK)[:, None]
        return scores.masked_fill(~causal[None], float("-inf"))


gate = Gate().to(dev)
opt = torch.optim.AdamW(gate.parameters(), lr=1e-3)
block_attention_mask = torch.zeros(bsz, 1, max_seqlen, nb, device=dev, dtype=torch.bool)
for i, s in enumerate(lens):
    block_attention_mask[i, 0, :s] = (
        torch.arange(nb, device=dev)[None, :] <= (torch.arange(s, device=dev) // BLOCK)[:, None]
    )

for step in range(3):
    q = torch.randn(total, H, D, device=dev, dtype=dt)
    k = torch.randn(total, KVH, D, device=dev, dtype=dt)
    v = torch.randn(total, KVH, D, device=dev, dtype=dt)
    with torch.no_grad():
        attn_output, gt = attn_pooling_qkv_varlen(q, k, v, cu, max_seqlen, 1.0 / math.sqrt(D), BLOCK)
        gt = F.max_pool3d(gt, kernel_size=[groups, 1, 1], stride=[groups, 1, 1])
        gt.masked_fill_(~block_attention_mask, 0.0)
        gt.div_(gt.sum(-1, keepdim=True) + 1e-9)
    loss = 0.0
    for i in range(bsz):
        start = int(lens[i] * 0.1)
        pred = F.log_softmax(gate(q, k, i)[:, start : lens[i]], dim=-1).float().clamp(min=-1e4)
        loss = loss + F.kl_div(pred, gt[i, :, start : lens[i]].float(), reduction="batchmean")
    loss = loss / bsz
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print("step", step, "gate loss", round(loss.item(), 4), tuple(gt.shape))

# attention output of the first sequence against SDPA (fp16 copy of the inputs for the check)
qh, kh, vh = (t.half() for t in (q, k, v))
o16, _ = attn_pooling_qkv_varlen(qh, kh, vh, cu, max_seqlen, 1.0 / math.sqrt(D), BLOCK)
s0 = lens[0]
ref = F.scaled_dot_product_attention(
    qh[:s0].transpose(0, 1)[None].float(),
    kh[:s0].repeat_interleave(groups, 1).transpose(0, 1)[None].float(),
    vh[:s0].repeat_interleave(groups, 1).transpose(0, 1)[None].float(),
    is_causal=True,
)[0].transpose(0, 1)
torch.cuda.synchronize()
print(
    "seerattention gate distill ok",
    "fp16 attn max err",
    round((o16[:s0].float() - ref).abs().max().item(), 4),
)
