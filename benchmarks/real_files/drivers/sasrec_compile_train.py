"""Corpus driver (kx's code): SASRec, self-attentive sequential recommendation
(pmixer/SASRec.pytorch, python/model.py: item and position embeddings built from numpy id
arrays inside forward (torch.LongTensor(log_seqs).to(dev), np.tile position ids zeroed at
padding), a causal boolean mask, num_blocks of torch.nn.MultiheadAttention (seq-first, so
transposes around it) with pre- or post-LayerNorm and a Conv1d point-wise feed-forward,
positive / negative logits as row dot products; predict() scores 101 candidate items per user)
under torch.compile, trained as main.py trains it on a MovieLens-1M-sized problem: batches of
128 users with maxlen-200 histories (left-padded with 0), one sampled negative per position,
BCE-with-logits on the non-padding positions selected by np.where, L2 on the item embedding,
Adam (lr 1e-3, betas 0.9 / 0.98), dropout 0.2; then the evaluation that main.py runs (rank of
the held-out item among 100 sampled negatives, NDCG@10 / HR@10) with predict (compiled too). Synthetic
sequences stand in for the dataset. Compiled eval logits are checked against eager's."""

from types import SimpleNamespace

import _corpus18_support as S
import numpy as np
import torch
from sasrec_model import SASRec

torch.manual_seed(0)
rng = np.random.default_rng(0)
dev = "cuda"
USERS, ITEMS, B, MAXLEN, HID, STEPS = S.pick((6040, 3416, 128, 200, 50, 12), (40, 60, 8, 12, 16, 3))
args = SimpleNamespace(
    device=dev,
    hidden_units=HID,
    maxlen=MAXLEN,
    num_blocks=2,
    num_heads=1,
    dropout_rate=0.2,
    norm_first=False,
    l2_emb=0.0,
)

# per-user histories with a little structure (each user drifts through a region of the catalogue)
hist = []
for u in range(USERS):
    n = int(rng.integers(5, 2 * MAXLEN))
    start = int(rng.integers(1, ITEMS))
    hist.append([(start + int(k) - 1) % ITEMS + 1 for k in np.cumsum(rng.integers(0, 4, n))])


def batch(users):
    seq = np.zeros((len(users), MAXLEN), dtype=np.int64)
    pos = np.zeros_like(seq)
    neg = np.zeros_like(seq)
    for r, u in enumerate(users):
        h = hist[u][:-1][-(MAXLEN + 1) :]
        s, p = h[:-1], h[1:]
        seq[r, MAXLEN - len(s) :] = s
        pos[r, MAXLEN - len(p) :] = p
        neg[r, MAXLEN - len(p) :] = rng.integers(1, ITEMS + 1, len(p))
    return np.array(users), seq, pos, neg


model = SASRec(USERS, ITEMS, args).to(dev)
for name, param in model.named_parameters():
    if param.dim() > 1:  # main.py tries xavier_normal_ on every parameter and skips the 1-D ones
        torch.nn.init.xavier_normal_(param.data)
model.pos_emb.weight.data[0, :] = 0
model.item_emb.weight.data[0, :] = 0
cmodel = torch.compile(model)
bce = torch.nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98))
model.train()
for step in range(STEPS):
    u, seq, pos, neg = batch(rng.choice(USERS, B, replace=False))
    pos_logits, neg_logits = cmodel(u, seq, pos, neg)
    pos_labels, neg_labels = (
        torch.ones(pos_logits.shape, device=dev),
        torch.zeros(neg_logits.shape, device=dev),
    )
    opt.zero_grad()
    indices = np.where(pos != 0)
    loss = bce(pos_logits[indices], pos_labels[indices])
    loss += bce(neg_logits[indices], neg_labels[indices])
    for param in model.item_emb.parameters():
        loss += args.l2_emb * torch.sum(param**2)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
    assert torch.isfinite(loss)

model.eval()
users = rng.choice(USERS, min(USERS, 1000 if not S.small() else 16), replace=False)
seq = np.zeros((len(users), MAXLEN), dtype=np.int64)
cands = np.zeros((len(users), 101), dtype=np.int64)
for r, u in enumerate(users):
    h = hist[u][-(MAXLEN + 1) :]
    seq[r, MAXLEN - len(h) + 1 :] = h[:-1]
    cands[r, 0] = h[-1]
    cands[r, 1:] = rng.integers(1, ITEMS + 1, 100)
with torch.no_grad():
    logits = torch.compile(model.predict)(users, seq, cands)
    logits_e = model.predict(users, seq, cands)
rank = (-logits).argsort(dim=1).argsort(dim=1)[:, 0]
ndcg = torch.where(
    rank < 10, 1 / torch.log2(rank.float() + 2), torch.zeros_like(rank, dtype=torch.float)
).mean()
hr = (rank < 10).float().mean()
err = S.rel_err(logits, logits_e)
print(
    f"eval on {len(users)} users: NDCG@10 {ndcg.item():.4f} HR@10 {hr.item():.4f}; compiled vs eager logits rel err {err:.1e}"
)
assert err < 1e-3, err
torch.cuda.synchronize()
print("sasrec_compile_train ok")
