"""Corpus driver (kx's code): facebookresearch/memory's product-key memory layer
(lingua/product_key/memory.py: HashingMemory: a QueryMLP to 4 heads of 512-d queries, product-key
top-k over two half-key sets (topk, a knn x knn cartesian product, topk again), softmax scores, the
value read through xFormerEmbeddingBag -> xformers_embedding_bag (lingua/product_key/
xformer_embeddingbag.py: a Triton weighted embedding-bag forward; its backward with
bw_algo="reverse_indices" counts uses per embedding with atomics into a uint32 histogram, argsorts
the counts, cumsums them into begin offsets, builds the reverse mapping with atomics and
aggregates each embedding's gradient and the per-sample-weight gradients in one kernel), then the
SwiLU value projection), trained as the paper's memory layer: d 1024, 512^2 = 262,144 memory
values of 1024, knn 32, 8 x 512 tokens; 3 AdamW steps in fp32 with the output and every
gradient checked against the same layer whose embedding bag is PyTorch's F.embedding_bag, then
a bf16 forward / backward (lingua trains the values in bf16)."""

import copy

import _corpus13_support as S
import torch
import torch.nn.functional as F

S.bare_package("lingua")  # not its __init__ (the training framework)
import lingua.product_key.colwise_embedding_bag as CEB  # noqa: E402
from lingua.product_key.memory import HashingMemory  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, N_KEYS, HEADS, KNN, K_DIM = S.pick((1024, 512, 4, 32, 512), (64, 16, 2, 4, 32))
B, T, STEPS = S.pick((8, 512, 3), (2, 16, 2))

HashingMemory.VALUES = None  # class-level shared-values slot: start fresh
mem = HashingMemory(D, D, mem_n_keys=N_KEYS, mem_heads=HEADS, mem_knn=KNN, mem_k_dim=K_DIM)
mem.reset_parameters()
mem = mem.float().to(dev).train()
ref = copy.deepcopy(mem)
triton_bag = CEB.xformers_embedding_bag


def torch_bag(indices, weight, per_sample_weights, mode="sum"):
    return F.embedding_bag(indices, weight, per_sample_weights=per_sample_weights, mode=mode)


def run(module, bag, x):
    CEB.xformers_embedding_bag = bag  # the module-level name xFormerEmbeddingBag.forward calls
    try:
        return module(x)
    finally:
        CEB.xformers_embedding_bag = triton_bag


opt = torch.optim.AdamW(mem.parameters(), lr=1e-3)
opt_ref = torch.optim.AdamW(ref.parameters(), lr=1e-3)
for step in range(STEPS):
    x = torch.randn(B, T, D, device=dev)
    target = torch.randn(B, T, D, device=dev)
    out, out_ref = run(mem, triton_bag, x), run(ref, torch_bag, x)
    F.mse_loss(out, target).backward()
    F.mse_loss(out_ref, target).backward()
    grads = {n: S.rel_err(p.grad, q.grad) for (n, p), q in zip(mem.named_parameters(), ref.parameters())}
    worst = max(grads, key=grads.get)
    print(f"step {step}: out rel err {S.rel_err(out, out_ref):.1e}, worst grad {worst} {grads[worst]:.1e}")
    opt.step()
    opt_ref.step()
    opt.zero_grad(set_to_none=True)
    opt_ref.zero_grad(set_to_none=True)

mem_bf = copy.deepcopy(mem).to(torch.bfloat16)
ref_bf = copy.deepcopy(mem_bf)
x = torch.randn(B, T, D, device=dev, dtype=torch.bfloat16)
out, out_ref = run(mem_bf, triton_bag, x), run(ref_bf, torch_bag, x)
out.float().square().mean().backward()
out_ref.float().square().mean().backward()
g, g_ref = mem_bf.values.weight.grad, ref_bf.values.weight.grad
touched = g.float().abs().sum(1).gt(0).sum().item()
print(
    f"bf16: out rel err vs bf16 torch bag {S.rel_err(out, out_ref):.1e}, values grad {S.rel_err(g, g_ref):.1e} "
    f"({touched} memory rows touched)"
)
torch.cuda.synchronize()
print("memory_pk_layer ok")
