"""Corpus driver (kx's code): Yu-Hsiang Huang's "Attention is All You Need" implementation
(jadore801120/attention-is-all-you-need-pytorch: transformer/Models.py's encoder-decoder
Transformer (sinusoid position table buffer, pad and subsequent masks, scaled dot-product
attention with masked_fill, post-LayerNorm sublayers, source / target / projection weights
shared, projection scaled by d_model^-0.5), Optim.py's ScheduledOptim warm-up schedule,
train.py's train_epoch / eval_epoch with label-smoothed cal_performance (one-hot scatter,
masked_select, host reads of token counts), and Translator.py's beam search (a Python loop over
decode steps with a growing target prefix, k^2 topk, in-place prefix copies, and an .item()
stop test when every beam has emitted EOS)) run as train.py and translate.py run them, with
kx's torch.compile around the model for training and around translate_sentence for decoding.
Data: a toy reversal translation task in the legacy torchtext batch layout. Checked: training
loss / accuracy from the project's own loop, eval-mode logits compiled vs an eager twin, and the
beam-search outputs compiled vs eager (at least half identical: near-tied beam scores may reorder)."""

from types import SimpleNamespace

import _corpus19_support as S
import torch
import torch.optim as optim

S.install_aiayn_train_standins()
import aiayn_train as train  # noqa: E402
from transformer.Models import Transformer  # noqa: E402
from transformer.Optim import ScheduledOptim  # noqa: E402
from transformer.Translator import Translator  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
PAD, BOS, EOS = 1, 2, 3
V, D, DI, NL, NH, MAXLEN, BATCH, NB, EPOCHS, BEAM, N_TRANS = S.pick(
    (1000, 512, 2048, 6, 8, 32, 64, 20, 2, 5, 4), (40, 32, 64, 2, 2, 8, 8, 3, 1, 3, 2)
)
opt = SimpleNamespace(src_pad_idx=PAD, trg_pad_idx=PAD, d_model=D)
hp = dict(d_k=D // NH, d_v=D // NH, d_model=D, d_word_vec=D, d_inner=DI, n_layers=NL, n_head=NH, dropout=0.1)
model = Transformer(
    V,
    V,
    src_pad_idx=PAD,
    trg_pad_idx=PAD,
    trg_emb_prj_weight_sharing=True,
    emb_src_trg_weight_sharing=True,
    scale_emb_or_prj="prj",
    **hp,
).to(dev)
compiled = torch.compile(model)
optimizer = ScheduledOptim(
    optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-09), 2.0, D, 4000 if not S.small() else 10
)
train_data = S.reversal_batches(NB, BATCH, MAXLEN, V, PAD, BOS, EOS, seed=0)
val_data = S.reversal_batches(2, BATCH, MAXLEN, V, PAD, BOS, EOS, seed=1)
for epoch in range(EPOCHS):
    tr_loss, tr_acc = train.train_epoch(compiled, train_data, optimizer, opt, dev, smoothing=True)
    va_loss, va_acc = train.eval_epoch(compiled, val_data, dev, opt)
    print(
        f"epoch {epoch}: train loss/word {tr_loss:.3f} acc {tr_acc:.3f}; val loss/word {va_loss:.3f} acc {va_acc:.3f}"
    )

eager = Transformer(
    V,
    V,
    src_pad_idx=PAD,
    trg_pad_idx=PAD,
    trg_emb_prj_weight_sharing=True,
    emb_src_trg_weight_sharing=True,
    scale_emb_or_prj="prj",
    **hp,
).to(dev)
eager.load_state_dict(model.state_dict())
model.eval()
eager.eval()
b = val_data[0]
src, (trg, _) = train.patch_src(b.src, PAD).to(dev), train.patch_trg(b.trg, PAD)
with torch.no_grad():
    e_logits = S.rel_err(compiled(src, trg.to(dev)), eager(src, trg.to(dev)))

tr_c = Translator(model, BEAM, MAXLEN + 2, PAD, PAD, BOS, EOS).to(dev)
tr_e = Translator(eager, BEAM, MAXLEN + 2, PAD, PAD, BOS, EOS).to(dev)
translate_c = torch.compile(tr_c.translate_sentence)
same = 0
for i in range(N_TRANS):
    s = src[i : i + 1]
    s = s[:, : int((s != PAD).sum())]
    out_c, out_e = translate_c(s), tr_e.translate_sentence(s)
    same += out_c == out_e
    print(f"beam {BEAM}: src len {s.size(1)} -> {len(out_c)} tokens, compiled == eager: {out_c == out_e}")
print(f"eval logits compiled vs eager rel err {e_logits:.1e}; {same}/{N_TRANS} beam outputs identical")
assert torch.isfinite(torch.tensor(tr_loss)) and e_logits < 1e-3 and 2 * same >= N_TRANS, (
    e_logits,
    same,
)  # near-tied beams may reorder
torch.cuda.synchronize()
print("aiayn_compile_train_beam ok")
