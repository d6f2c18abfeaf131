"""Corpus driver (kx's code): yandex-research/tabm's TabM (tabm.py: TabM.make with periodic
numerical-feature embeddings from rtdl_num_embeddings (a pure-Python package carried as a wheel),
one-hot categorical encoding, EnsembleView, the BatchEnsemble MLP backbone of make_tabm_backbone
(LinearBatchEnsemble's per-member r / s adapters with random-sign init), LinearEnsemble heads, k =
32 members) trained as the repository's example.ipynb trains it and as the paper's TabM-mini*
runs (torch.compile, bf16 autocast): a covertype-shaped task (10 numerical and 44 binary
categorical features, 7 classes), batch 1024, the mean of the k members' cross-entropies, AdamW,
12 compiled steps of forward + loss.backward() + step; then the compiled vs the eager
ensemble-averaged probabilities in eval mode."""

import _corpus14_support as S
import torch
import torch.nn.functional as F
from rtdl_num_embeddings import PeriodicEmbeddings  # noqa: E402
from tabm import TabM  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
N_NUM, N_CAT, N_CLS, B, STEPS = S.pick((10, 44, 7, 1024, 12), (4, 3, 3, 16, 2))

model = TabM.make(
    n_num_features=N_NUM,
    cat_cardinalities=[2] * N_CAT,
    d_out=N_CLS,
    num_embeddings=PeriodicEmbeddings(N_NUM, lite=False),
).to(dev)
print(f"TabM: k {model.k}, {sum(p.numel() for p in model.parameters())} parameters")
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=3e-4)
compiled = torch.compile(model)


def batch():
    x_num = torch.randn(B, N_NUM, device=dev)
    x_cat = torch.randint(0, 2, (B, N_CAT), device=dev)
    y = (x_num[:, 0] > 0).long() + (x_num[:, 1] > 1).long() + x_cat[:, 0]  # a learnable toy target
    return x_num, x_cat, y.clamp(max=N_CLS - 1)


model.train()
for step in range(STEPS):
    x_num, x_cat, y = batch()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = compiled(x_num, x_cat)  # (B, k, classes)
    loss = F.cross_entropy(out.flatten(0, 1).float(), y.repeat_interleave(model.k))  # mean over members
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
x_num, x_cat, y = batch()
with torch.no_grad():
    got = compiled(x_num, x_cat).softmax(-1).mean(1)
    want = model(x_num, x_cat).softmax(-1).mean(1)
print(
    f"compiled vs eager ensemble probabilities rel err {S.rel_err(got, want):.1e}, acc {(got.argmax(-1) == y).float().mean().item():.3f}"
)
torch.cuda.synchronize()
print("tabm_compile_train ok")
