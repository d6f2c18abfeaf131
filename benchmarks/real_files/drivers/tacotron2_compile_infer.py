"""Corpus driver (kx's code): NVIDIA's Tacotron 2 (NVIDIA/tacotron2, model.py) synthesising mel
spectrograms with Tacotron2.inference wrapped in torch.compile, as the repo's inference notebook
runs it: encoder.inference (convs + bidirectional LSTM), then Decoder.inference's open-ended
autoregressive loop (prenet with always-on dropout, attention LSTMCell, location-sensitive
attention, decoder LSTMCell, mel / gate projections), which reads every frame's gate back to
the host (torch.sigmoid(gate_output.data) > gate_threshold: break) and stops there or at
max_decoder_steps, then the postnet. Random weights (the gate projection's bias lowered so the
stop token is rare at first, as in a partly trained model) and hparams.py's sizes; three
sentences of different lengths, one at a time (batch 1, as inference is run). With
torch._inductor.config.fallback_random the compiled run's dropout draws follow eager's, so each
mel spectrogram (and where it stopped) is checked against eager inference with the same seed."""

import _corpus18_support as S
import torch
import torch._inductor.config as inductor_config

S.install_tacotron2_standins()
from model import Tacotron2  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = "cuda"
hp = S.tacotron2_hparams(max_decoder_steps=S.pick(300, 12))
if S.small():
    hp = S.tacotron2_hparams(
        max_decoder_steps=12, symbols_embedding_dim=16, encoder_embedding_dim=16, decoder_rnn_dim=24, prenet_dim=8,
        attention_rnn_dim=24, attention_dim=8, attention_location_n_filters=4, postnet_embedding_dim=16,
    )  # fmt: skip
model = Tacotron2(hp).to(dev).eval()
with torch.no_grad():
    model.decoder.gate_layer.linear_layer.bias.fill_(-2.0)
infer = torch.compile(model.inference)

g = torch.Generator().manual_seed(5)
for n in S.pick((40, 75, 120), (5, 8, 6)):
    seq = torch.randint(1, hp.n_symbols, (1, n), generator=g).to(dev)
    with torch.no_grad():
        torch.manual_seed(n)
        mel, mel_post, gate, align = infer(seq)
        torch.manual_seed(n)
        mel_e, mel_post_e, gate_e, align_e = model.inference(seq)
    frames = mel_post.shape[-1]
    stopped = "gate" if torch.sigmoid(gate[0, -1]) > hp.gate_threshold else "max_decoder_steps"
    err = S.rel_err(mel_post, mel_post_e) if mel_post.shape == mel_post_e.shape else float("inf")
    print(
        f"{n} symbols: {frames} frames (stopped by {stopped}), alignment {tuple(align.shape)}, mel rel err vs eager {err:.1e}"
    )
    assert mel_post.shape == mel_post_e.shape and 1 <= frames <= hp.max_decoder_steps, (
        mel_post.shape,
        mel_post_e.shape,
    )
    assert torch.isfinite(mel_post).all() and err < 1e-3, err
torch.cuda.synchronize()
print("tacotron2_compile_infer ok")
