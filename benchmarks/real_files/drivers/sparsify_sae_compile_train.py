"""Corpus driver (kx's code): EleutherAI sparsify's TopK sparse autoencoder (sparsify/sparse_coder.py:
SparseCoder with its bf16-autocast forward, the fused_encoder autograd.Function (ReLU, top-k,
an index_add backward), the Triton embedding-bag decoder, FVU, the AuxK loss over dead latents
and the Multi-TopK FVU) trained under torch.compile the way sparsify's Trainer steps it:
loss = fvu + auxk_alpha * auxk_loss + multi_topk_fvu / 8, backward,
remove_gradient_parallel_to_decoder_directions (an einops.einsum projection), Adam, then
set_decoder_norm_to_unit_norm; random residual-stream batches of a 2048-wide model with a 32x
expansion stand in for cached LLM activations. The compiled forward's FVU is checked against
the eager module's at the same weights first."""

import _corpus17_support as S
import torch

S.install_sparsify_standins()
from sparsify.config import SparseCoderConfig  # noqa: E402
from sparsify.sparse_coder import SparseCoder  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, EXP, K, BATCH, STEPS = S.pick((2048, 32, 32, 4096, 4), (16, 4, 4, 8, 2))
cfg = SparseCoderConfig(expansion_factor=EXP, k=K, multi_topk=True)
sae = SparseCoder(D, cfg, device=dev, dtype=torch.float32)
csae = torch.compile(sae)
opt = torch.optim.Adam(sae.parameters(), lr=2e-4 / (sae.num_latents / 2**14) ** 0.5, eps=6.25e-10)
dead = torch.zeros(sae.num_latents, dtype=torch.bool, device=dev)
dead[: sae.num_latents // 4] = True  # a quarter of the latents marked dead: the AuxK branch runs

x0 = torch.randn(BATCH, D, device=dev)
with torch.no_grad():
    fvu_eager = sae(x0).fvu.item()
    fvu_comp = csae(x0).fvu.item()
print(f"step-0 FVU eager {fvu_eager:.5f} compiled {fvu_comp:.5f}")
assert abs(fvu_comp - fvu_eager) < 2e-2 * max(fvu_eager, 1e-3)

for step in range(STEPS):
    x = torch.randn(BATCH, D, device=dev) * (1 + torch.arange(D, device=dev) / D)
    out = csae(x, dead_mask=dead)
    loss = out.fvu + 1 / 32 * out.auxk_loss + out.multi_topk_fvu / 8
    loss.backward()
    sae.remove_gradient_parallel_to_decoder_directions()
    opt.step()
    opt.zero_grad(set_to_none=True)
    sae.set_decoder_norm_to_unit_norm()
    print(
        f"step {step}: fvu {out.fvu.item():.4f} auxk {out.auxk_loss.item():.4f} multi-topk fvu {out.multi_topk_fvu.item():.4f}"
    )
    assert torch.isfinite(loss)
norms = sae.W_dec.norm(dim=1)
assert (norms - 1).abs().max() < 1e-3, norms
torch.cuda.synchronize()
print("sparsify_sae_compile_train ok")
