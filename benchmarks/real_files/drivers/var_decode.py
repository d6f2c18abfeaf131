"""Corpus driver (kx's code): FoundationVision/VAR's next-scale prediction sampler
(models/var.py: VAR.autoregressive_infer_cfg: 10 scales (1, 2, 3, 4, 5, 6, 8, 10, 13, 16 squared
tokens), the conditional and unconditional halves stacked in one batch, per-block KV caching
(basic_var.py SelfAttention.kv_caching: keys / values concatenated across scales), AdaLN blocks
with L2-normalised attention, classifier-free guidance ratio ramping with the scale, top-k / top-p
sampling (helpers.py sample_with_top_k_top_p_), the multi-scale residual quantiser's
get_next_autoregressive_input (quant.py: upsampled phi-refined residuals accumulated into f_hat and
downsampled to the next scale), then the VQVAE decoder (vqvae.py fhat_to_img)), as the demo samples
it: VAR-d16 (1024 wide, 16 heads, 310M) with random weights, 8 ImageNet classes, cfg 4, top-k 900,
top-p 0.96. Each scale's guided logits (recorded at the sampler) are checked against the
training-time teacher-forced forward (VAR.forward with the block-causal attention mask, no KV
cache) over the sampled tokens, run for the conditional and the unconditional labels and mixed
with the same guidance."""

import _corpus13_support as S
import torch

S.install_hf_hub_standin()
import models.var as var_module  # noqa: E402
from models import build_vae_var  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DEPTH, CH, PATCH_NUMS, B = S.pick((16, 160, (1, 2, 3, 4, 5, 6, 8, 10, 13, 16), 8), (2, 32, (1, 2, 3, 4), 2))
CFG = 4.0
vae, var = build_vae_var(dev, patch_nums=PATCH_NUMS, ch=CH, depth=DEPTH, num_classes=1000)
with torch.no_grad():  # build_vae_var turns off nn init (it expects a checkpoint): random VQVAE weights
    for n, p in vae.named_parameters():
        if p.dim() > 1:
            p.normal_(0, 0.02)
        else:
            p.fill_(1.0 if n.endswith("weight") else 0.0)
var.eval()
vae.eval()

recorded = []
real_sampler = var_module.sample_with_top_k_top_p_


def recording_sampler(logits_BlV, **kwargs):
    before = logits_BlV.float().clone()  # the sampler masks its input in place (top-k / top-p)
    idx = real_sampler(logits_BlV, **kwargs)
    recorded.append((before, idx[:, :, 0].clone()))
    return idx


var_module.sample_with_top_k_top_p_ = recording_sampler
labels = torch.tensor([207, 360, 387, 974, 88, 979, 417, 279][:B], device=dev)
with torch.inference_mode():
    img = var.autoregressive_infer_cfg(B=B, label_B=labels, g_seed=0, cfg=CFG, top_k=900, top_p=0.96)
    idx_per_scale = [i for _, i in recorded]
    x_in = vae.quantize.idxBl_to_var_input(idx_per_scale)
    var.cond_drop_rate = 0.0  # VAR.forward drops labels at random (training); not for the check
    cond = var(labels, x_in)
    uncond = var(torch.full_like(labels, 1000), x_in)
errs, begin = [], 0
for si, (pn, (got, _)) in enumerate(zip(PATCH_NUMS, recorded)):
    t = CFG * si / (len(PATCH_NUMS) - 1)
    sl = slice(begin, begin + pn * pn)
    errs.append(S.rel_err(got, (1 + t) * cond[:, sl] - t * uncond[:, sl]))
    begin += pn * pn
print(
    f"{B} images {tuple(img.shape[-2:])}, {begin} tokens over {len(PATCH_NUMS)} scales: "
    f"worst scale logits rel err {max(errs):.1e} (KV-cached sampler vs teacher-forced forward)"
)
torch.cuda.synchronize()
print("var_decode ok")
