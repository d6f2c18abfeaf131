"""Corpus driver (kx's code): black-forest-labs/flux's Flux transformer (src/flux/model.py: Flux
with FluxParams; modules/layers.py: EmbedND 3-axis RoPE (float64 angles, 2 x 2 rotation
matrices), timestep_embedding, MLPEmbedder, Modulation, DoubleStreamBlock (separate image / text
streams joined for attention, QK RMSNorm), SingleStreamBlock (fused linear1 -> qkv + MLP),
LastLayer with adaLN; math.py attention through SDPA) trained with torch.compile as a
rectified-flow model (the training objective Flux's sampling.py integrates: x_t = (1 - t) x0 + t
noise, velocity target noise - x0, logit-normal t): a small Flux (hidden 1024, 8 heads of 128,
2 double + 4 single blocks, axes (16, 56, 56), guidance embedding on) with
random weights, batch 4, 64 x 64 latents with 16 channels packed 2 x 2 into 1024 tokens of 64,
256 T5-like text tokens of 4096, a 768-d pooled vector, bf16 autocast, AdamW, 6 steps of
compiled forward + backward + step, then the compiled loss vs the eager loss on a new batch."""

import _corpus13_support as S
import torch

S.bare_package("flux")  # not its __init__ (version file, CLI)
from flux.model import Flux, FluxParams  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
HID, HEADS, DEPTH, SINGLE, AXES = S.pick((1024, 8, 2, 4, [16, 56, 56]), (128, 2, 1, 1, [16, 24, 24]))
B, LAT, TXT, CTX, STEPS = S.pick((4, 64, 256, 4096, 6), (2, 8, 8, 64, 2))
params = FluxParams(
    in_channels=64,
    out_channels=64,
    vec_in_dim=768,
    context_in_dim=CTX,
    hidden_size=HID,
    mlp_ratio=4.0,
    num_heads=HEADS,
    depth=DEPTH,
    depth_single_blocks=SINGLE,
    axes_dim=AXES,
    theta=10_000,
    qkv_bias=True,
    guidance_embed=True,
)
model = Flux(params).to(dev)
with torch.no_grad():
    for p in model.parameters():
        if p.dim() > 1:
            p.normal_(0, 0.02)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.0)

H = W = LAT // 2
img_ids = torch.zeros(H, W, 3)
img_ids[..., 1] = torch.arange(H)[:, None]
img_ids[..., 2] = torch.arange(W)[None, :]
img_ids = img_ids.reshape(1, H * W, 3).repeat(B, 1, 1).to(dev)
txt_ids = torch.zeros(B, TXT, 3, device=dev)


def pack(latent):  # (B, 16, LAT, LAT) -> (B, H*W, 64), as flux.sampling.prepare does
    b, c, _, _ = latent.shape
    return latent.reshape(b, c, H, 2, W, 2).permute(0, 2, 4, 1, 3, 5).reshape(b, H * W, c * 4)


def loss_fn(x0, noise, t, txt, vec, guidance):
    xt = (1 - t[:, None, None]) * x0 + t[:, None, None] * noise
    with torch.autocast("cuda", dtype=torch.bfloat16):
        v = model(img=xt, img_ids=img_ids, txt=txt, txt_ids=txt_ids, timesteps=t, y=vec, guidance=guidance)
    return torch.nn.functional.mse_loss(v.float(), noise - x0)


compiled_loss = torch.compile(loss_fn)


def batch():
    x0 = pack(torch.randn(B, 16, LAT, LAT, device=dev))
    return (
        x0,
        torch.randn_like(x0),
        torch.sigmoid(torch.randn(B, device=dev)),
        torch.randn(B, TXT, CTX, device=dev),
        torch.randn(B, 768, device=dev),
        torch.full((B,), 3.5, device=dev),
    )


for step in range(STEPS):
    loss = compiled_loss(*batch())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

args = batch()
with torch.no_grad():
    got, want = compiled_loss(*args), loss_fn(*args)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("flux_compile_train ok")
