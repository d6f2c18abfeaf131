"""Corpus driver (kx's code): Diego999/pyGAT's sparse graph attention network (models.py SpGAT
over layers.py SpGraphAttentionLayer: adj.nonzero() edges, per-edge exp(-LeakyReLU(a [h_i || h_j])),
row sums and aggregation through SpecialSpmmFunction, a torch.sparse_coo_tensor matmul autograd
.Function whose backward gathers the dense grad at the edge indices, NaN asserts on the way)
under torch.compile, trained as train.py --sparse does: full-graph forward, nll_loss on the
training nodes, backward, Adam (lr 0.005, weight decay 5e-4), then the validation loss in eval
mode. A random PubMed-sized graph (19717 nodes, 500 TF-IDF-like features, 3 classes, about 4.5
neighbours a node) stands in for the dataset (the sparse version is the one pyGAT's README
suggests for larger graphs); the compiled model's eval output is checked against eager's."""

import _corpus17_support as S
import torch
import torch.nn.functional as F
from models import SpGAT

torch.manual_seed(72)
dev = "cuda"
N, FEAT, CLASSES, DEG, EPOCHS = S.pick((19717, 500, 3, 5, 4), (40, 24, 3, 3, 2))
adj = S.random_graph_dense(N, DEG, dev, seed=1)
features = torch.rand(N, FEAT, device=dev) * (torch.rand(N, FEAT, device=dev) < 0.1)
features = features / features.sum(1, keepdim=True).clamp(min=1e-6)
labels = torch.randint(0, CLASSES, (N,), device=dev)
idx_train, idx_val = (
    torch.arange(0, S.pick(60, 10), device=dev),
    torch.arange(S.pick(60, 10), S.pick(560, 20), device=dev),
)

model = SpGAT(nfeat=FEAT, nhid=8, nclass=CLASSES, dropout=0.6, nheads=8, alpha=0.2).to(dev)
cmodel = torch.compile(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=5e-4)
for epoch in range(EPOCHS):
    model.train()
    optimizer.zero_grad()
    output = cmodel(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        output = cmodel(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    print(f"epoch {epoch}: loss_train {loss_train.item():.4f} loss_val {loss_val.item():.4f}")
    assert torch.isfinite(loss_train) and torch.isfinite(loss_val)

with torch.no_grad():
    err = S.rel_err(cmodel(features, adj), model(features, adj))
print(f"compiled vs eager eval log-probs rel err {err:.1e}")
assert err < 1e-3, err
torch.cuda.synchronize()
print("pygat_sparse_compile_train ok")
