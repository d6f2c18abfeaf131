"""Corpus driver (kx's code): mgmalek/efficient_cross_entropy (modules.py:
FusedProjectionPlusCrossEntropyLoss, a language-model head fused with its cross-entropy loss: the
token features are split into n_loop_iters chunks, each chunk's logits are computed with
torch.matmul(out=...) into one reused buffer, a Triton kernel (one program per token, BLOCK_SIZE
= next_power_of_2(vocab), 16 warps) writes the loss and overwrites the logits with their
gradient, and the input / weight gradients are accumulated in the forward with addmm(out=...);
backward only scales them) on a Llama-sized head: 8192 tokens of width 2048, vocabulary 32000,
4 loop iterations, some targets at ignore_index, in float32 and then under bfloat16 autocast
(the kernel's get_autocast_gpu_dtype branch). Loss and both gradients checked against the
file's PyTorchProjectionPlusCrossEntropyLoss (nn.Linear + nn.CrossEntropyLoss)."""

import _corpus18_support as S
import torch
from efficient_ce_modules import FusedProjectionPlusCrossEntropyLoss, PyTorchProjectionPlusCrossEntropyLoss

torch.manual_seed(0)
dev = "cuda"
N_TOK, DIM, VOCAB, ITERS = S.pick((8192, 2048, 32000, 4), (64, 32, 100, 4))

fused = FusedProjectionPlusCrossEntropyLoss(DIM, VOCAB, n_loop_iters=ITERS, ignore_index=-100).to(dev)
ref = PyTorchProjectionPlusCrossEntropyLoss(DIM, VOCAB, ignore_index=-100).to(dev)
ref.proj.weight.data.copy_(fused.proj_weight.data)

x = torch.randn(N_TOK, DIM, device=dev, requires_grad=True)
targ = torch.randint(0, VOCAB, (N_TOK,), device=dev)
targ[::7] = -100

for autocast in (False, True):
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
        loss = fused(x, targ)
    loss.backward()
    got = [loss.detach().float(), x.grad.clone(), fused.proj_weight.grad.clone()]
    x.grad = None
    fused.proj_weight.grad = None
    loss_ref = ref(x, targ)
    loss_ref.backward()
    want = [loss_ref.detach(), x.grad.clone(), ref.proj.weight.grad.clone()]
    x.grad = None
    ref.proj.weight.grad = None
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    tol = 3e-2 if autocast else 1e-4
    print(
        f"{N_TOK} tokens x {DIM} -> {VOCAB} classes, {ITERS} chunks, autocast bf16 {autocast}: "
        f"loss {got[0].item():.4f} (ref {want[0].item():.4f}), rel errs loss {errs[0]:.1e} dx {errs[1]:.1e} dW {errs[2]:.1e}"
    )
    assert all(e < tol for e in errs), errs
torch.cuda.synchronize()
print("efficient_ce_fused_loss ok")
