"""Corpus driver (kx's code): svg-project/Sparse-VideoGen's semantic-aware permutation (SVG2):
svg/kmeans_utils.py's Triton k-means (batch_kmeans_Euclid: per iteration euclid_assign_triton, an
autotuned nearest-centroid kernel over 18 tile configs using precomputed |x|^2, and
triton_centroid_update_sorted_euclid: a batch-wise torch.sort of the assignments, a Triton
chunked segment-sum kernel with atomic adds of sums and counts, empty clusters keeping their old
centroid; the loop stops when the largest centroid shift, read on the host, is under tol) and
svg/kernels/triton/permute.py (permute_tensor_by_labels_triton / apply_inverse_permutation_triton:
argsort of the labels, row gathers in 64-token tiles), as SVG2 runs them on Wan 2.1's attention:
query and key states of 1 x 12 heads x 32,760 tokens (21 latent frames of 30 x 52) x 128 in bf16,
200 query and 1000 key clusters, 8 iterations, then the permute / attend / inverse-permute
round trip. Checks: the assignment and the centroid update of one iteration against PyTorch
(cdist argmin agreement; scatter-mean centroids), the cluster sizes against bincount, the
permutation against torch.gather and the round trip exactly, density_calculation's ratio against
its definition."""

import _corpus13_support as S
import torch

S.install_svg_standins()
S.bare_package("svg")  # not its __init__ (model pipelines)
from svg.kernels.triton.permute import apply_inverse_permutation_triton, permute_tensor_by_labels_triton  # noqa: E402
from svg.kmeans_utils import (  # noqa: E402
    batch_kmeans_Euclid,
    density_calculation,
    euclid_assign_triton,
    triton_centroid_update_sorted_euclid,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
H, S_TOK, D, QC, KC, ITERS = S.pick((12, 32760, 128, 200, 1000, 8), (2, 300, 32, 8, 16, 3))

centers = torch.randn(H, 64, D, device=dev)  # clustered token states, like real q / k
q = (centers[:, torch.randint(0, 64, (S_TOK,))] + 0.3 * torch.randn(H, S_TOK, D, device=dev)).to(dt)
k = (centers[:, torch.randint(0, 64, (S_TOK,))] + 0.3 * torch.randn(H, S_TOK, D, device=dev)).to(dt)

# one iteration's pieces vs PyTorch
init = q[:, torch.randperm(S_TOK, device=dev)[:QC]]
ids = euclid_assign_triton(q, init, q.float().square().sum(-1))
ref_ids = torch.cdist(q.float(), init.float()).argmin(-1)
agree = (ids == ref_ids).float().mean().item()
cents, counts = triton_centroid_update_sorted_euclid(q, ids.long(), init)
sums = torch.zeros(H, QC, D, device=dev).scatter_add_(1, ids.long()[..., None].expand(-1, -1, D), q.float())
cnt = torch.stack([torch.bincount(i.long(), minlength=QC) for i in ids])
ref_cents = torch.where(cnt[..., None] > 0, sums / cnt.clamp_min(1)[..., None], init.float())
print(
    f"assign agreement {agree:.4f}, centroid rel err {S.rel_err(cents, ref_cents):.1e}, counts equal {torch.equal(counts.long(), cnt)}"
)

# the full k-means for q and k, then the permutation round trip
q_ids, q_cent, q_sizes, q_it = batch_kmeans_Euclid(q, QC, max_iters=ITERS)
k_ids, k_cent, k_sizes, k_it = batch_kmeans_Euclid(k, KC, max_iters=ITERS)
print(f"kmeans: q {q_it} iters, k {k_it} iters; sizes sum {q_sizes.sum().item()} / {k_sizes.sum().item()}")
q4, k4 = q[None], k[None]
q_perm, q_idx = permute_tensor_by_labels_triton(q4, q_ids[None], dim=2)
k_perm, k_idx = permute_tensor_by_labels_triton(k4, k_ids[None], dim=2)
gather_ok = torch.equal(q_perm, torch.gather(q4, 2, q_idx.long()[..., None].expand(-1, -1, -1, D)))
sorted_ok = bool((q_ids[None].gather(2, q_idx.long()).diff(dim=-1) >= 0).all())
out_perm = torch.nn.functional.scaled_dot_product_attention(
    q_perm, k_perm, k_perm
)  # keys reordered too: same result
out = apply_inverse_permutation_triton(out_perm, q_idx, dim=2)
ref = torch.nn.functional.scaled_dot_product_attention(q4, k4, k4)
print(
    f"permute == gather {gather_ok}, labels sorted {sorted_ok}, round trip attention rel err {S.rel_err(out, ref):.1e}"
)

dyn = (torch.rand(1, H, QC, KC, device=dev) < 0.3).float()
dens = density_calculation(dyn, q_sizes[None].float(), k_sizes[None].float())
blk = q_sizes[None, :, :, None].float() * k_sizes[None, :, None, :].float()
print(f"density rel err {S.rel_err(dens, (blk * dyn).sum((2, 3)) / blk.sum((2, 3))):.1e}")
torch.cuda.synchronize()
print("svg_kmeans_permute ok")
