"""Corpus driver (kx's code): VITS text-to-speech inference (jaywalnut310/vits, models.py
SynthesizerTrn.infer: transformer text encoder with relative-position attention (attentions.py),
stochastic duration predictor run in reverse (a conv flow stack with rational-quadratic spline
couplings from transforms.py: searchsorted-style bin lookup, masked inside / outside the tail
bound), durations ceil'd, y_lengths summed and the output length read back by
commons.sequence_mask(y_lengths, None) (torch.arange(lengths.max()): a data-dependent length),
monotonic alignment path by cumsum (commons.generate_path), prior sampling with randn_like,
residual-coupling flow in reverse (WaveNet-style WN layers), then the HiFi-GAN generator
(weight-normed ConvTranspose1d upsampling x256 and multi-receptive-field ResBlocks)) with infer
wrapped in torch.compile, as the repo's inference notebook calls it: LJSpeech model
(configs/ljs_base.json's sizes, 178 symbols, add_blank interleaving), random weights, noise_scale
0.667, noise_scale_w 0.8, length_scale 1, for a batch of one sentence at a time (three sentences
of different lengths, so the text length and the generated length change between calls).
torch._inductor.config.fallback_random keeps the compiled sampling on eager's RNG stream; each
waveform is checked against eager infer with the same seed."""

import _corpus18_support as S
import torch
import torch._inductor.config as inductor_config

S.install_vits_standins()
import commons  # noqa: E402
from models import SynthesizerTrn  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = "cuda"
N_SYMBOLS = 178
hp = dict(
    inter_channels=192,
    hidden_channels=192,
    filter_channels=768,
    n_heads=2,
    n_layers=6,
    kernel_size=3,
    p_dropout=0.1,
    resblock="1",
    resblock_kernel_sizes=[3, 7, 11],
    resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5], [1, 3, 5]],
    upsample_rates=[8, 8, 2, 2],
    upsample_initial_channel=512,
    upsample_kernel_sizes=[16, 16, 4, 4],
)
if S.small():
    hp.update(
        inter_channels=16, hidden_channels=16, filter_channels=32, n_layers=2, upsample_initial_channel=32
    )
net_g = SynthesizerTrn(N_SYMBOLS, 1024 // 2 + 1, 8192 // 256, **hp).to(dev).eval()
infer = torch.compile(net_g.infer)

g = torch.Generator().manual_seed(3)
lengths = S.pick((61, 95, 142), (7, 11, 9))
for n in lengths:
    text = commons.intersperse(torch.randint(1, N_SYMBOLS, (n,), generator=g).tolist(), 0)  # add_blank
    x = torch.LongTensor(text).unsqueeze(0).to(dev)
    x_len = torch.LongTensor([x.size(1)]).to(dev)
    with torch.no_grad():
        torch.manual_seed(n)
        audio, attn, y_mask, _ = infer(x, x_len, noise_scale=0.667, noise_scale_w=0.8, length_scale=1)
        torch.manual_seed(n)
        audio_e, _, y_mask_e, _ = net_g.infer(x, x_len, noise_scale=0.667, noise_scale_w=0.8, length_scale=1)
    frames = int(y_mask.sum().item())
    err = S.rel_err(audio, audio_e)
    print(
        f"{n} symbols ({x.size(1)} with blanks): {frames} frames -> {audio.shape[-1]} samples, rel err vs eager {err:.1e}"
    )
    assert audio.shape == audio_e.shape and audio.shape[-1] == 256 * frames, (audio.shape, frames)
    assert torch.isfinite(audio).all() and err < 1e-2, err
torch.cuda.synchronize()
print("vits_compile_infer ok")
