"""Corpus driver (kx's code): dame-cell/Triformer's TritonCrossEntropyLoss (cross_entropy.py: one
Triton kernel computes each row's loss and writes the softmax gradient into the logits buffer in
place, over n_chunks chunks of rows, the mean divisor counted on the device from the non-ignored
targets) on LLM-sized logits: 4 x 1024 tokens over a 32,000-token vocabulary in fp32 with some
targets set to the pad id, n_chunks 1 and 4; loss and the logits' gradient (through a scaled
backward) vs F.cross_entropy(ignore_index=pad)."""

import _corpus14_support as S
import torch
import torch.nn.functional as F
from triformer import TritonCrossEntropyLoss  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, T, V, PAD = S.pick((4, 1024, 32000, 0), (2, 16, 300, 0))

for n_chunks in (1, 4):
    logits = torch.randn(B, T, V, device=dev) * 2
    tgt = torch.randint(1, V, (B, T), device=dev)
    tgt[:, -T // 8 :] = PAD  # padded tail
    ref_logits = logits.clone().requires_grad_()
    want = F.cross_entropy(ref_logits.view(-1, V), tgt.view(-1), ignore_index=PAD)
    (want * 3.0).backward()
    x = logits.clone().requires_grad_()
    loss_fn = TritonCrossEntropyLoss(pad_token_id=PAD, reduction="mean", n_chunks=n_chunks)
    y = x.view(-1, V) * 1.0  # a non-leaf, as a model's logits are (the kernel writes the gradient into it)
    loss = loss_fn(y, tgt)
    (loss * 3.0).backward()
    print(
        f"n_chunks {n_chunks}: loss {loss.item():.5f} vs {want.item():.5f} (rel err {S.rel_err(loss, want):.1e}), "
        f"grad rel err {S.rel_err(x.grad, ref_logits.grad):.1e}"
    )
torch.cuda.synchronize()
print("triformer_cross_entropy ok")
