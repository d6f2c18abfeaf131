"""Corpus driver (kx's code): lightning-thunder's Triton cross-entropy executor
(thunder/executors/triton_crossentropy_impl.py): cross_entropy_impl, the function the
"triton" OperatorExecutor registers as the implementation of thunder.torch.cross_entropy
(what a thunder.jit(fn, executors=[triton_ex]) trace calls), over the CrossEntropy
autograd.Function: @triton.autotune'd _forward / _backward (5 BLOCK configs each, key N /
CLASS_INDICES / log_size_logits / BUFFER_DTYPE; grid lambdas reading the chosen BLOCK), with
WEIGHTS / CLASS_INDICES / LABEL_SMOOTHING / IGNORE_INDEX / BUFFER_DTYPE (a tl.dtype) as
constexprs and @triton.jit helpers for class-index and class-probability targets.

thunder's tracer itself (thunder/__init__.py: optree, dill, nvfuser probing) is not installed
on the device; the executor registry the module touches at import is a stand-in
(_corpus_support.thunder_triton_ce), the kernels and the autograd.Function run unchanged.

1. thunder's own test shape (GPT-2 vocab 50257, 2048 rows), bf16 logits, class weights,
   reduction="sum", ignore_index = a real class id read from the labels with .item()
   (the IGNORE_INDEX >= 0 branch), forward + backward;
2. fp32 logits, label smoothing 0.1 with weights, reduction="mean", default ignore_index=-100
   (no -100 labels: with a negative IGNORE_INDEX the kernel does not mask the gather);
3. fp16 logits with class-probability targets (soft labels, CLASS_INDICES=False),
   reduction="none", backward with a per-row upstream gradient."""

import _corpus_support
import torch

_corpus_support.thunder_triton_ce()
from thunder.executors.triton_crossentropy_impl import cross_entropy_impl  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
N, V = 2048, 50257

# 1. bf16, weights, sum, ignore_index from the data
logits = torch.randn(N, V, device=dev, dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, V, (N,), device=dev)
ignore = labels[5].item()
weight = torch.rand(V, device=dev, dtype=torch.bfloat16)
loss1 = cross_entropy_impl(logits, labels, weight=weight, ignore_index=ignore, reduction="sum")
loss1.backward()

# 2. fp32, label smoothing + weights, mean
logits2 = torch.randn(N, V, device=dev, requires_grad=True)
loss2 = cross_entropy_impl(logits2, labels, weight=weight.float(), reduction="mean", label_smoothing=0.1)
loss2.backward()

# 3. fp16, soft labels, per-row losses
R, C = 4096, 32000
logits3 = torch.randn(R, C, device=dev, dtype=torch.float16, requires_grad=True)
soft = torch.softmax(torch.randn(R, C, device=dev), dim=-1).to(torch.float16)
loss3 = cross_entropy_impl(logits3, soft, reduction="none")
loss3.backward(torch.rand_like(loss3))

torch.cuda.synchronize()
print(
    "thunder triton ce ok",
    round(loss1.float().item(), 2),
    round(loss2.item(), 4),
    tuple(loss3.shape),
    tuple(logits.grad.shape),
    tuple(logits3.grad.shape),
)
