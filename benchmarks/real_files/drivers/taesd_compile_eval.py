"""Corpus driver (kx's code): madebyollin/taesd's Tiny AutoEncoder (taesd.py: TAESD with the
Encoder / Decoder stacks of 3x3-conv residual Blocks, stride-2 downsampling, nearest Upsample,
the tanh Clamp, and the latent scale / unscale helpers) under torch.compile in eval mode, as a
diffusion pipeline's live preview uses it: the SD variant (4 latent channels) and the FLUX.2
variant (32 channels, GroupNorm mid-blocks) built without checkpoints (random weights; the
repository's .pth files are not read), images encoded, latents quantized to 8 bits through
scale_latents / unscale_latents as taesd.py's main does, and decoded, in float16 under no_grad;
compiled results checked against eager."""

import _corpus16_support as S
import torch
from taesd import TAESD

torch.manual_seed(0)
dev = "cuda"
BATCH, SIZE = S.pick((4, 512), (1, 64))

for name, enc_name in (("sd", "taesd_encoder.pth"), ("flux_2", "taef2_encoder.pth")):
    latent_channels, arch = TAESD.guess_latent_channels_and_arch(None, enc_name)
    model = TAESD(encoder_path=None, decoder_path=None, latent_channels=latent_channels, arch_variant=arch)
    model = model.to(dev, S.pick(torch.float16, torch.float32)).eval()
    enc, dec = torch.compile(model.encoder), torch.compile(model.decoder)
    im = torch.rand(BATCH, 3, SIZE, SIZE, device=dev, dtype=next(model.parameters()).dtype)
    with torch.no_grad():
        lat = enc(im)
        q = TAESD.scale_latents(lat).mul(255).round().byte()
        lat_q = TAESD.unscale_latents(q.to(im.dtype) / 255)
        out = dec(lat_q).clamp(0, 1)
        lat_e = model.encoder(im)
        out_e = model.decoder(lat_q).clamp(0, 1)
    errs = (S.rel_err(lat, lat_e), S.rel_err(out, out_e))
    print(f"{name}: latents {tuple(lat.shape)} image {tuple(out.shape)}; compiled vs eager rel err {errs[0]:.1e} {errs[1]:.1e}")
    assert lat.shape[1] == latent_channels and out.shape == im.shape
    assert max(errs) < S.pick(3e-2, 1e-3), errs

torch.cuda.synchronize()
print("taesd_compile_eval ok")
