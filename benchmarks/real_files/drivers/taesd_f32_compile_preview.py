"""Corpus driver (kx's code): madebyollin/taesd's 32x-downscaling variant (taesd.py: TAESD with
arch_variant "f32", i.e. F32Encoder / F32Decoder with 32 latent channels, strided first
convolutions and a 256 -> 64-channel decoder with five nearest upsamplings, as used for Sana's
DC-AE latents) under torch.compile as a sampler's live preview calls it: the decoder alone on
latents of a growing batch of preview frames (1, 2, 4 at 32 x 32 latents -> 1024 x 1024, dynamic
batch as torch decides) in bfloat16 under inference_mode, plus one encode; compiled results
checked against eager. Random weights (no checkpoint)."""

import _corpus16_support as S
import torch
from taesd import TAESD

torch.manual_seed(0)
dev = "cuda"
LAT = S.pick(32, 2)
dtype = S.pick(torch.bfloat16, torch.float32)

model = TAESD(encoder_path=None, decoder_path=None, latent_channels=32, arch_variant="f32").to(dev, dtype).eval()
dec, enc = torch.compile(model.decoder), torch.compile(model.encoder)
with torch.inference_mode():
    for batch in (1, 2, 4):
        lat = torch.randn(batch, 32, LAT, LAT, device=dev, dtype=dtype)
        got, want = dec(lat).clamp(0, 1), model.decoder(lat).clamp(0, 1)
        err = S.rel_err(got, want)
        print(f"decode batch {batch}: {tuple(got.shape)} compiled vs eager rel err {err:.1e}")
        assert got.shape == (batch, 3, LAT * 32, LAT * 32) and err < S.pick(5e-2, 1e-3), err
    im = torch.rand(2, 3, LAT * 32, LAT * 32, device=dev, dtype=dtype)
    lat, lat_e = enc(im), model.encoder(im)
    err = S.rel_err(lat, lat_e)
    print(f"encode: {tuple(lat.shape)} compiled vs eager rel err {err:.1e}")
    assert lat.shape == (2, 32, LAT, LAT) and err < S.pick(5e-2, 1e-3), err

torch.cuda.synchronize()
print("taesd_f32_compile_preview ok")
