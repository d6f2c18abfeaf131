"""Corpus driver (kx's code): Diego999/pyGAT's dense graph attention network (models.py GAT over
layers.py GraphAttentionLayer: x W, the attention logits a^T [Wh_i || Wh_j] built by broadcasting
two (N, 1) products, LeakyReLU, -9e15 masking by the dense adjacency, softmax, dropout, 8 heads
concatenated, an ELU'd averaging output layer, log_softmax) under torch.compile, trained the way
train.py trains it on Cora: full-graph forward, nll_loss on the 140 training nodes, backward,
Adam (lr 0.005, weight decay 5e-4), then the validation loss in eval mode. A random Cora-sized
graph (2708 nodes, 1433 binary features, 7 classes, row-normalised adjacency with self loops)
stands in for the dataset; the compiled model's eval output is checked against eager's."""

import _corpus17_support as S
import torch
import torch.nn.functional as F
from models import GAT

torch.manual_seed(72)
dev = "cuda"
N, FEAT, CLASSES, DEG, EPOCHS = S.pick((2708, 1433, 7, 4, 5), (40, 24, 3, 3, 2))
adj = S.random_graph_dense(N, DEG, dev)
features = (torch.rand(N, FEAT, device=dev) < 0.0127 * S.pick(1, 8)).float()
features = features / features.sum(1, keepdim=True).clamp(min=1)
labels = torch.randint(0, CLASSES, (N,), device=dev)
idx_train, idx_val = (
    torch.arange(0, S.pick(140, 10), device=dev),
    torch.arange(S.pick(200, 10), S.pick(500, 20), device=dev),
)

model = GAT(nfeat=FEAT, nhid=8, nclass=CLASSES, dropout=0.6, nheads=8, alpha=0.2).to(dev)
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
print("pygat_compile_train ok")
