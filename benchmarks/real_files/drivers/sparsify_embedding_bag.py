"""Corpus driver (kx's code): EleutherAI sparsify's Triton embedding-bag (sparsify/xformers.py,
adapted from facebookresearch/memory: embedding_bag_k, a per-row loop over the bag with the
feature dim padded to a power of two and masked, and the backward by reverse indices:
count_per_embedding_k with atomic adds, map_embeddings_and_outputs_k, then
aggregate_gradient_for_embedding_k over blocks of 8 latents sorted by use count) through its
xformers_embedding_bag autograd.Function, at a TopK sparse autoencoder's decoder shapes (k 32 of
131072 latents over a 4096-wide residual, the widths sparsify trains on Llama-3-8B; a 768-wide
GPT-2 one with a padded dim) in float32 and bfloat16; output, weight grad and per-sample-weight
grad checked against torch.nn.functional.embedding_bag(mode="sum")."""

import _corpus17_support as S
import torch
import torch.nn.functional as F

S.install_sparsify_standins()
from sparsify.xformers import xformers_embedding_bag  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
CASES = S.pick(
    [
        (4096, 131072, 4096, 32, torch.float32),
        (4096, 131072, 4096, 32, torch.bfloat16),
        (8192, 24576, 768, 32, torch.float32),
        (2048, 32768, 1000, 64, torch.float32),
    ],
    [(8, 64, 16, 4, torch.float32), (6, 48, 12, 4, torch.float32)],
)
for B, n_latents, dim, k, dtype in CASES:
    weight = (torch.randn(n_latents, dim, device=dev) / dim**0.5).to(dtype).requires_grad_()
    indices = torch.rand(B, n_latents, device=dev).topk(k, dim=-1).indices
    acts = torch.rand(B, k, device=dev).to(dtype).requires_grad_()
    out = xformers_embedding_bag(indices, weight, acts)
    g = torch.randn_like(out)
    out.backward(g)
    got = (out.detach(), weight.grad.clone(), acts.grad.clone())
    w32, a32 = weight.detach().float().requires_grad_(), acts.detach().float().requires_grad_()
    want_out = F.embedding_bag(indices, w32, per_sample_weights=a32, mode="sum")
    want_out.backward(g.float())
    want = (want_out.detach(), w32.grad, a32.grad)
    errs = [S.rel_err(a, b) for a, b in zip(got, want)]
    print(
        f"B {B} latents {n_latents} dim {dim} k {k} {dtype}: rel err out/dW/dacts "
        + " ".join(f"{x:.1e}" for x in errs)
    )
    assert max(errs) < (1e-4 if dtype == torch.float32 else 2e-2), errs
torch.cuda.synchronize()
print("sparsify_embedding_bag ok")
