"""Corpus driver (kx's code): NVIDIA's Tacotron 2 (NVIDIA/tacotron2, model.py: character
embedding, 3-conv + bidirectional-LSTM encoder over packed sequences (pack_padded_sequence with
lengths read to the host), an autoregressive decoder with always-on prenet dropout, an attention
LSTMCell, location-sensitive attention (conv over cumulative weights, masked by
get_mask_from_lengths, which reads max(lengths).item() and allocates with torch.cuda.LongTensor),
a decoder LSTMCell, mel / gate projections, teacher-forced frame by frame in a Python loop, a
5-conv postnet) trained under torch.compile the way train.py trains it: parse_batch,
Tacotron2Loss (mel MSE before / after the postnet + gate BCE), clip_grad_norm_ 1.0, Adam (lr
1e-3, weight decay 1e-6), with mask_padding off (see below). Batches of 32 with text up to 48
tokens and mel targets up to 64 frames (short clips: the teacher-forced decoder loop unrolls once
per frame in the compiled graph), sorted by length as the collate function does, are synthetic;
the hparams are hparams.py's (a namespace: that file needs TensorFlow).
torch._inductor.config.fallback_random keeps the dropouts on eager's RNG stream so the first
step's loss and gradients are checked against an eager twin."""

import copy

import _corpus18_support as S
import torch
import torch._inductor.config as inductor_config

S.install_tacotron2_standins()
from loss_function import Tacotron2Loss  # noqa: E402
from model import Tacotron2  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = "cuda"
B, S_MAX, T_MAX, STEPS = S.pick((32, 48, 64, 3), (3, 9, 10, 2))
# mask_padding=False: parse_output's outputs[i].data.masked_fill_ on the compiled graph's outputs
# breaks autograd's version check under torch.compile (eager is fine), so padded frames stay unmasked
hp = S.tacotron2_hparams(mask_padding=False)
if S.small():
    hp = S.tacotron2_hparams(
        mask_padding=False,
        symbols_embedding_dim=16, encoder_embedding_dim=16, decoder_rnn_dim=24, prenet_dim=8,
        attention_rnn_dim=24, attention_dim=8, attention_location_n_filters=4, postnet_embedding_dim=16,
    )  # fmt: skip

g = torch.Generator().manual_seed(1)


def make_batch():
    in_len = torch.sort(torch.randint(S_MAX // 2, S_MAX + 1, (B,), generator=g), descending=True)[0]
    in_len[0] = S_MAX
    out_len = torch.randint(T_MAX // 2, T_MAX + 1, (B,), generator=g)
    out_len[0] = T_MAX
    text = torch.zeros(B, S_MAX, dtype=torch.long)
    mel = torch.zeros(B, hp.n_mel_channels, T_MAX)
    gate = torch.zeros(B, T_MAX)
    for i in range(B):
        text[i, : in_len[i]] = torch.randint(1, hp.n_symbols, (int(in_len[i]),), generator=g)
        t = torch.linspace(0, 1, int(out_len[i]))
        mel[i, :, : out_len[i]] = (
            torch.sin(6 * t[None] * torch.arange(1, hp.n_mel_channels + 1)[:, None] / 20) - 4
        )
        gate[i, out_len[i] - 1 :] = 1
    return text, in_len, mel, gate, out_len


model = Tacotron2(hp).to(dev)
twin = copy.deepcopy(model)
cmodel = torch.compile(model)
criterion = Tacotron2Loss()
opt = torch.optim.Adam(model.parameters(), lr=hp.learning_rate, weight_decay=hp.weight_decay)
model.train()
twin.train()
for step in range(STEPS):
    x, y = model.parse_batch(make_batch())
    x, y = tuple(t.to(dev) if torch.is_tensor(t) else t for t in x), tuple(t.to(dev) for t in y)
    rng = torch.get_rng_state(), torch.cuda.get_rng_state() if dev == "cuda" else None
    opt.zero_grad()
    loss = criterion(cmodel(x), y)
    loss.backward()
    if step == 0:
        torch.set_rng_state(rng[0])
        if rng[1] is not None:
            torch.cuda.set_rng_state(rng[1])
        loss_e = criterion(twin(x), y)
        loss_e.backward()
        # one scale for all parameters: the conv biases before BatchNorm have (numerically) zero gradients
        diff = max(
            (p.grad - q.grad).abs().max().item() for p, q in zip(model.parameters(), twin.parameters())
        )
        err = diff / max(q.grad.abs().max().item() for q in twin.parameters())
        print(
            f"step 0 compiled vs eager: loss {loss.item():.5f} vs {loss_e.item():.5f}, worst grad rel err {err:.1e}"
        )
        assert abs(loss.item() - loss_e.item()) < 1e-3 * abs(loss_e.item()) and err < 1e-2, err
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), hp.grad_clip_thresh)
    opt.step()
    print(f"step {step}: loss {loss.item():.5f} grad norm {gnorm.item():.3f}")
    assert torch.isfinite(loss)
torch.cuda.synchronize()
print("tacotron2_compile_train ok")
