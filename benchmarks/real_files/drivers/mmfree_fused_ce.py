"""Corpus driver (kx's code): ridgerchu/matmulfreellm's fused cross-entropy in Triton
(mmfreelm/modules/fused_cross_entropy.py: FusedCrossEntropyLoss / CrossEntropyLossFunction, from
flash-attention's: a forward kernel under @triton.heuristics (HAS_SMOOTHING) computing the loss
and the log-sum-exp per row, a vocabulary split into 64K-column blocks with a host-side
log-sum-exp reduction of the partial results when the vocabulary is wider than that, an in-place
or out-of-place backward kernel, label smoothing, logit scaling, z-loss and ignored labels) as
the MatMul-free LM's trainer uses it: bf16 logits of 8192 tokens x the repo's 32,000-token
vocabulary with label smoothing 0.1 and 5% ignored labels (mean over the kept ones: a division
by their count on the device), forward + backward vs torch's cross-entropy in fp32; then z-loss
(lse_square_scale 1e-4, return_z_loss) and a 128,256-wide vocabulary (two column blocks) with
the in-place backward."""

import _corpus11_support as S
import torch
import torch.nn.functional as F

S.bare_package("mmfreelm")  # not its __init__ (the HF model classes, transformers)
from mmfreelm.modules.fused_cross_entropy import FusedCrossEntropyLoss  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
N = S.pick(8192, 64)
VOCABS = S.pick((32000, 128256), (1000, 70000))


def data(vocab):
    logits = (torch.randn(N, vocab, device=dev) * 2).to(dt).requires_grad_()
    labels = torch.randint(0, vocab, (N,), device=dev)
    labels[torch.rand(N, device=dev) < 0.05] = -100
    return logits, labels


def reference(logits, labels, smoothing, z_scale):
    x = logits.detach().float().requires_grad_()
    loss = F.cross_entropy(x, labels, ignore_index=-100, label_smoothing=smoothing, reduction="none")
    lse = torch.logsumexp(x, -1)
    keep = labels != -100
    loss = loss + z_scale * lse.square() * keep
    loss = loss.sum() / keep.sum()
    return loss, x


# 1. label smoothing, ignored labels, mean reduction
logits, labels = data(VOCABS[0])
loss = FusedCrossEntropyLoss(label_smoothing=0.1)(logits, labels)
loss.backward()
ref, x = reference(logits, labels, 0.1, 0.0)
ref.backward()
print(f"vocab {VOCABS[0]} smoothing: loss {loss.item():.4f} ref {ref.item():.4f} grad rel err {S.rel_err(logits.grad, x.grad):.1e}")

# 2. z-loss, a vocabulary over 64K columns (split lse), in-place backward
for vocab in VOCABS:
    logits, labels = data(vocab)
    crit = FusedCrossEntropyLoss(lse_square_scale=1e-4, inplace_backward=True, return_z_loss=True)
    loss, z_loss = crit(logits, labels)
    ref, x = reference(logits, labels, 0.0, 1e-4)
    ref.backward()
    loss.backward()  # in place: the logits' storage now holds the gradient
    print(
        f"vocab {vocab} z-loss: loss {loss.item():.4f} ref {ref.item():.4f} z {z_loss.item():.4f}",
        f"grad rel err {S.rel_err(logits.grad, x.grad):.1e}",
    )
torch.cuda.synchronize()
print("mmfree fused ce ok")
