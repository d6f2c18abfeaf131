"""Corpus driver (kx's code): hkproj/pytorch-stable-diffusion's from-scratch Stable Diffusion VAE
(sd/encoder.py VAE_Encoder: residual GroupNorm / SiLU blocks, asymmetric zero padding before the
stride-2 convolutions, a single-head VAE_AttentionBlock at 1/8 resolution, reparameterized
sampling with the 0.18215 scale; sd/decoder.py VAE_Decoder: the mirror image with nearest
upsampling, dividing its input by 0.18215 in place) under torch.compile in eval mode, random
weights (no checkpoint): images of two sizes encoded with fixed noise and decoded, the compiled
latents and images checked against eager (each call given its own copy of the latents, since the
decoder divides its input in place)."""

import _corpus16_support as S
import torch
from decoder import VAE_Decoder
from encoder import VAE_Encoder

torch.manual_seed(0)
dev = "cuda"
BATCH = S.pick(2, 1)
SIZES = S.pick((256, 384), (32, 48))

encoder, decoder = VAE_Encoder().to(dev).eval(), VAE_Decoder().to(dev).eval()
c_encoder, c_decoder = torch.compile(encoder), torch.compile(decoder)

with torch.no_grad():
    for size in SIZES:
        im = torch.rand(BATCH, 3, size, size, device=dev) * 2 - 1
        noise = torch.randn(BATCH, 4, size // 8, size // 8, device=dev)
        lat = c_encoder(im, noise)
        lat_e = encoder(im, noise)
        out = c_decoder(lat.clone())
        out_e = decoder(lat.clone())
        errs = (S.rel_err(lat, lat_e), S.rel_err(out, out_e))
        print(f"{size}x{size}: latents {tuple(lat.shape)}; compiled vs eager rel err latents / image {errs[0]:.1e} {errs[1]:.1e}")
        assert out.shape == im.shape and max(errs) < 1e-2, errs

torch.cuda.synchronize()
print("sdhk_vae_compile_eval ok")
