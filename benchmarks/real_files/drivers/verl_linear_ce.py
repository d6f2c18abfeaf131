"""Corpus driver (kx's code): volcengine/verl's fused linear cross-entropy / entropy in Triton
(verl/utils/kernel/linear_cross_entropy.py: linear_cross_entropy, an autograd function over
verl/utils/kernel/kernels.py: efficient_entropy_forward (an autotuned main loop computing the
lm-head logits tile by tile, keeping per-split maxima / sums / entropy partials, with TMA tensor
descriptors where the device and Triton have them, then an autotuned epilogue) and
efficient_entropy_backward (the split-along-vocabulary d_logits kernel then d_hidden / d_weight
matmuls, or the fully separate variant)) as verl's PPO actor uses it (models/transformers/
dense_common.py: token log-probs of the rolled labels and the entropy, reduction "none",
temperature): a Qwen2.5-7B-shaped head (hidden 3584, vocab 152,064) in bf16 on 4096 response
tokens, a policy-gradient loss -(logprob * advantage) - 0.01 * entropy, forward + backward vs the
same loss from fp32 logits; then temperature 0.7 with the separate backward
(set_backward_method) on 2000 tokens (a new autotune key)."""

import _corpus11_support as S
import torch

S.bare_package("verl")  # not its __init__ (ray, the trainer stack)
from verl.utils.kernel import kernels  # noqa: E402
from verl.utils.kernel.linear_cross_entropy import linear_cross_entropy  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
HIDDEN, VOCAB = S.pick((3584, 152064), (128, 1000))
CASES = S.pick([(4096, 1.0, None), (2000, 0.7, kernels.BackwardEnum._Total_Separate)], [(64, 1.0, None), (37, 0.7, kernels.BackwardEnum._Total_Separate)])

weight = (torch.randn(VOCAB, HIDDEN, device=dev) * HIDDEN**-0.5).to(dt).requires_grad_()
for tokens, temperature, backward in CASES:
    if backward is not None:
        kernels.set_backward_method(backward)
    hidden = torch.randn(tokens, HIDDEN, device=dev).to(dt).requires_grad_()
    labels = torch.randint(0, VOCAB, (tokens,), device=dev)
    advantage = torch.randn(tokens, device=dev)
    logprobs, entropy = linear_cross_entropy(hidden, weight, labels, temperature, "none")
    loss = -(logprobs * advantage).mean() - 0.01 * entropy.mean()
    grads = torch.autograd.grad(loss, (hidden, weight))

    h32, w32 = (t.detach().float().requires_grad_() for t in (hidden, weight))
    logp = torch.log_softmax((h32 @ w32.T) / temperature, -1)
    ref_lp = logp.gather(-1, labels[:, None]).squeeze(-1)
    ref_ent = -(logp.exp() * logp).sum(-1)
    ref_loss = -(ref_lp * advantage).mean() - 0.01 * ref_ent.mean()
    rgrads = torch.autograd.grad(ref_loss, (h32, w32))
    print(
        f"tokens {tokens} T={temperature}", f"logprobs {S.rel_err(logprobs, ref_lp):.1e} entropy {S.rel_err(entropy, ref_ent):.1e}",
        f"loss {loss.item():.5f} ref {ref_loss.item():.5f}",
        "grads hidden weight " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, rgrads, strict=True)),
    )
torch.cuda.synchronize()
print("verl linear ce ok")
