"""Corpus driver (kx's code): EleutherAI sparsify's SAE decoder selection and Triton decode
(sparsify/utils.py: decoder_impl set to triton_decode when sparsify.xformers imports, i.e. the
Triton embedding-bag over W_dec with the top-k activations as per-sample weights) used the way
SparseCoder.decode uses it: a batch of residual-stream activations encoded by the file's
fused_encoder (ReLU, top-k) against random encoder / decoder weights of a 32x expansion of a
2048-wide model, decoded by decoder_impl and by utils.eager_decode, in float32 and bfloat16, then
a backward of the reconstruction error through the decoder (the Triton backward kernels); checked
against eager_decode and its autograd."""

import _corpus17_support as S
import torch

S.install_sparsify_standins()
from sparsify import utils  # noqa: E402
from sparsify.fused_encoder import fused_encoder  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
assert utils.decoder_impl is utils.triton_decode, utils.decoder_impl
N, D, EXP, K = S.pick((8192, 2048, 32, 32), (8, 16, 4, 4))
for dtype in (torch.float32, torch.bfloat16):
    x = torch.randn(N, D, device=dev, dtype=dtype)
    enc_w = (torch.randn(D * EXP, D, device=dev) / D**0.5).to(dtype)
    enc_b = torch.zeros(D * EXP, device=dev, dtype=dtype)
    W_dec = enc_w.clone().requires_grad_()
    top_acts, top_indices, _ = fused_encoder(x, enc_w, enc_b, K, "topk")
    top_acts = top_acts.detach().requires_grad_()
    y = utils.decoder_impl(top_indices, top_acts, W_dec.mT)
    loss = (y.float() - x.float()).pow(2).sum()
    loss.backward()
    got = (y.detach(), W_dec.grad.clone(), top_acts.grad.clone())
    W32, a32 = W_dec.detach().float().requires_grad_(), top_acts.detach().float().requires_grad_()
    y_ref = utils.eager_decode(top_indices, a32, W32.mT)
    (y_ref - x.float()).pow(2).sum().backward()
    errs = [S.rel_err(a, b) for a, b in zip(got, (y_ref.detach(), W32.grad, a32.grad))]
    print(
        f"N {N} D {D} latents {D * EXP} k {K} {dtype}: rel err y/dW_dec/dacts "
        + " ".join(f"{e:.1e}" for e in errs)
    )
    assert max(errs) < (1e-4 if dtype == torch.float32 else 3e-2), errs
torch.cuda.synchronize()
print("sparsify_triton_decode ok")
