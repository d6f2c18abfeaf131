"""Corpus driver (kx's code): jik876/hifi-gan's vocoder inference (models.py Generator, as
inference_e2e.py runs it: eval mode, remove_weight_norm(), mel in, waveform out) under
torch.compile for the V1 (ResBlock1, 512 initial channels) and V3 (ResBlock2, 256 channels,
upsampling 8 x 8 x 4) configurations, on a batch of mel spectrograms of random audio at two
lengths (dynamic shapes not forced: the second length recompiles or goes dynamic as torch
decides); the compiled audio checked against the eager generator's."""

import _corpus16_support as S
import torch

S.install_matplotlib_standin()
from models import Generator  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
BATCH = S.pick(4, 1)
SECONDS = S.pick((2.0, 3.0), (0.05, 0.08))

for cfg in ("config_v1.json", "config_v3.json"):
    h = S.load_hifigan_config(cfg)
    if S.small():
        h.upsample_initial_channel = 32
    generator = Generator(h).to(dev)
    generator.eval()
    generator.remove_weight_norm()
    compiled = torch.compile(generator)
    with torch.no_grad():
        for sec in SECONDS:
            y = torch.randn(BATCH, int(h.sampling_rate * sec), device=dev).mul(0.3).tanh()
            mel = S.hifigan_mel(y, h, h.fmax)
            audio = compiled(mel)
            want = generator(mel)
            err = S.rel_err(audio, want)
            print(f"{cfg} {mel.shape[-1]} mel frames -> {audio.shape[-1]} samples: compiled vs eager rel err {err:.1e}")
            assert audio.shape[-1] == mel.shape[-1] * h.hop_size and err < 1e-2, err

torch.cuda.synchronize()
print("hifigan_compile_infer ok")
