"""Corpus driver (kx's code): AlibabaPAI/FLASHNN's Triton paged decode attention
(flashnn/triton_kernels/paged_attn.py: paged_attention -> the single-query kernel over a paged
KV cache ([blocks, kv heads, block 16, head dim]) with the query heads of a GQA group batched
into one tl.dot tile (padded group size), the number of context splits chosen on the host from
the SM count and the longest context, and the split-reduce kernel when the context is split)
driven as a serving engine's decode loop: 16 sequences with contexts of 200-3000 tokens, 32 query
/ 8 KV heads, head dim 128, fp16; each of 12 steps writes the new token's K/V into the paged cache
(a free block taken when a sequence crosses a block boundary), grows context_lens and attends;
then 64 sequences (no split: more programs than 2 x SMs). Every step is compared with dense
attention over each sequence's gathered cache in fp32."""

import _corpus12_support as S
import torch

S.install_loguru_standin()
S.bare_package("flashnn")  # not its __init__ (imports every module's kernels)
from flashnn.triton_kernels.paged_attn import paged_attention  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
HQ, HK, HD, BLOCK = 32, 8, 128, 16
CASES = S.pick([(16, 200, 3000, 12), (64, 100, 1500, 4)], [(2, 5, 40, 3), (3, 3, 20, 2)])


def dense_reference(q, k_cache, v_cache, tables, lens, scale):
    outs = []
    for i, n in enumerate(lens.tolist()):
        blocks = tables[i, : (n + BLOCK - 1) // BLOCK]
        k = k_cache[blocks].permute(1, 0, 2, 3).reshape(HK, -1, HD)[:, :n].float()
        v = v_cache[blocks].permute(1, 0, 2, 3).reshape(HK, -1, HD)[:, :n].float()
        qi = q[i].float().view(HK, HQ // HK, HD)
        p = torch.softmax(qi @ k.transpose(-1, -2) * scale, -1)
        outs.append((p @ v).reshape(HQ, HD))
    return torch.stack(outs)


for seqs, lo, hi, steps in CASES:
    lens = torch.randint(lo, hi, (seqs,))
    max_blocks = (hi + steps + BLOCK - 1) // BLOCK
    n_blocks = seqs * max_blocks
    k_cache = torch.randn(n_blocks, HK, BLOCK, HD, device=dev, dtype=dt)
    v_cache = torch.randn(n_blocks, HK, BLOCK, HD, device=dev, dtype=dt)
    perm = torch.randperm(n_blocks)  # blocks handed out in a scrambled order, as an allocator would
    tables = torch.zeros(seqs, max_blocks, dtype=torch.int32)
    free = iter(perm.tolist())
    for i, n in enumerate(lens.tolist()):
        for j in range((n + BLOCK - 1) // BLOCK):
            tables[i, j] = next(free)
    scale = HD**-0.5
    errs = []
    for step in range(steps):
        k_new = torch.randn(seqs, HK, HD, device=dev, dtype=dt)
        v_new = torch.randn(seqs, HK, HD, device=dev, dtype=dt)
        for i in range(seqs):  # append this step's token to each sequence's pages
            pos = int(lens[i])
            if pos % BLOCK == 0:
                tables[i, pos // BLOCK] = next(free)
            blk = int(tables[i, pos // BLOCK])
            k_cache[blk, :, pos % BLOCK] = k_new[i]
            v_cache[blk, :, pos % BLOCK] = v_new[i]
        lens += 1
        q = torch.randn(seqs, HQ, HD, device=dev, dtype=dt)
        out = torch.empty_like(q)
        d_lens, d_tables = lens.to(dev, torch.int32), tables.to(dev)
        paged_attention(out, q, k_cache, v_cache, d_lens, d_tables, scale, int(lens.max()))
        errs.append(S.rel_err(out, dense_reference(q, k_cache, v_cache, tables.to(dev).long(), lens, scale)))
    print(f"{seqs} seqs ctx {lo}-{hi} +{steps} steps: worst rel err {torch.tensor(errs).max().item():.1e}")
torch.cuda.synchronize()
print("flashnn_paged_decode ok")
