"""Corpus driver (kx's code): ServiceNow/Fast-LLM's fused entropy losses in Triton
(fast_llm/functional/triton/entropy_loss.py: triton_entropy_loss_forward_backward, one kernel that
reads the logits once and writes the per-token losses and the logits' gradient: cross-entropy from
integer labels (labels < 0 masked), and, for distillation, cross-entropy / forward KL / reverse KL
against a teacher's logits with a loss mask, its distribution kernels autotuned over num_warps with
a pre-hook that saves and restores the gradient buffer, plus a fused z-loss) as a language model's
head uses it: bf16 logits of 8 x 1024 tokens over a 128k vocabulary, forward + backward in one
call, every loss and gradient compared with torch's autograd in fp32."""

import _corpus10_support as S
import torch
import torch.nn.functional as F
from fast_llm.functional.config import EntropyLossType, TargetFormat
from fast_llm.functional.triton.entropy_loss import triton_entropy_loss_forward_backward

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
T, V = S.pick((8 * 1024, 128256), (12, 200))

logits = (torch.randn(T, V, device=dev) * 2).to(dt)
labels = torch.randint(0, V, (T,), device=dev)
labels[torch.rand(T, device=dev) < 0.1] = -100  # padding / prompt tokens
teacher = (logits.float() + torch.randn(T, V, device=dev)).to(dt)
mask = torch.rand(T, device=dev) > 0.2


def reference(kind):
    x = logits.float().requires_grad_()
    if kind == "labels":
        loss = F.cross_entropy(x, labels, ignore_index=-100, reduction="sum") / T
    else:
        p_t = teacher.float().softmax(-1)
        logp = x.log_softmax(-1)
        if kind == "cross_entropy":
            per = -(p_t * logp).sum(-1)
        elif kind == "forward_kl":
            per = (p_t * (p_t.clamp_min(1e-30).log() - logp)).sum(-1)
        else:  # reverse_kl
            per = (logp.exp() * (logp - teacher.float().log_softmax(-1))).sum(-1)
        loss = (per * mask).sum() / T
    loss.backward()
    return loss.detach(), x.grad


loss, _, grad = triton_entropy_loss_forward_backward(logits, labels, None, grad_output=1.0)
ref_loss, ref_grad = reference("labels")
print("labels ce", f"loss {loss.item():.4f} ref {ref_loss.item():.4f}", f"grad rel err {S.rel_err(grad, ref_grad):.1e}")

for kind in ("cross_entropy", "forward_kl", "reverse_kl"):
    loss, _, grad = triton_entropy_loss_forward_backward(
        logits,
        teacher,
        mask,
        grad_output=1.0,
        target_format=TargetFormat.logits,
        entropy_loss_type=EntropyLossType(kind),
    )
    ref_loss, ref_grad = reference(kind)
    print(
        "distillation", kind, f"loss {loss.item():.4f} ref {ref_loss.item():.4f}",
        f"grad rel err {S.rel_err(grad, ref_grad):.1e}",
    )

# the same distillation loss with a fused z-loss (log-sum-exp squared) on the student's logits
loss, z_loss, grad = triton_entropy_loss_forward_backward(
    logits, teacher, mask, grad_output=1.0, target_format=TargetFormat.logits, z=(1e-4,)
)
x = logits.float().requires_grad_()
ref_z = ((x.logsumexp(-1) ** 2) * mask).sum() / T
print("with z-loss", f"loss {loss.item():.4f}", f"z {z_loss.item():.4f} ref {ref_z.item():.4f}")
torch.cuda.synchronize()
print("fast-llm entropy loss ok")
