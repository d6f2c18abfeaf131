"""Corpus driver (kx's code): pytorch/examples gat (Graph Attention Network) trained under
torch.compile with gat/main.py's own train_iter() and test() (forward + backward, Adam).

What main.py's __main__ does with its defaults (hidden 64, 8 heads averaged, dropout 0.6,
Adam lr 0.005 with weight decay 5e-4, NLLLoss) on a random Cora-sized graph instead of the
downloaded Cora (2708 nodes, 1433 bag-of-words features row-normalised as load_cora() does, a
dense adjacency matrix with self-loops, 7 classes, the same randperm split into 1200 test /
400 val / 1108 train nodes), with the model compiled as a user adds
`gat_net = torch.compile(gat_net)`: each train_iter() runs the compiled GAT in training mode
(torch.mm projection, per-head attention scores from two matmuls + broadcast add, LeakyReLU,
masking with torch.where(adj_mat > 0, ...), softmax over 2708 neighbours, dropout on features and
attention, attention @ features, head mean, ELU, second single-head layer, log_softmax), the
loss on the train index set, loss.backward(), Adam step, then test() twice (eval mode, no_grad:
the second, forward-only graph) on the train and val sets; finally test() on the test set.
main.py imports `requests` at module level for the Cora download, which the driver does not do:
a stand-in is put in its place when requests is absent.
"""

import importlib.util

import torch
from _corpus_support import stub_module
from torch import nn
from torch.optim import Adam

if importlib.util.find_spec("requests") is None:
    stub_module("requests")  # main.py's download of cora.tgz (not run here)

from gat.main import GAT, test, train_iter  # noqa: E402  (gat/ as a namespace package)

torch.manual_seed(13)
device = torch.accelerator.current_accelerator()

# a random stand-in for load_cora(): features scaled by 1/row-sum, adjacency = eye + edges
V, F_in, n_classes, E = 2708, 1433, 7, 5429
gen = torch.Generator().manual_seed(0)
features = (torch.rand(V, F_in, generator=gen) < 0.0127).float()
scale = 1 / features.sum(dim=1)
scale[scale == float("inf")] = 0
features = features * scale[:, None]
labels = torch.randint(0, n_classes, (V,), generator=gen)
edges = torch.randint(0, V, (2, E), generator=gen)
adj_mat = torch.eye(V)
adj_mat[edges[0], edges[1]] += 1
features, labels, adj_mat = features.to(device), labels.to(device), adj_mat.to(device)

idx = torch.randperm(len(labels)).to(device)
idx_test, idx_val, idx_train = idx[:1200], idx[1200:1600], idx[1600:]

gat_net = GAT(
    in_features=features.shape[1],
    n_hidden=64,
    n_heads=8,
    num_classes=labels.max().item() + 1,
    concat=False,
    dropout=0.6,
    leaky_relu_slope=0.2,
).to(device)
gat_net = torch.compile(gat_net)

optimizer = Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
criterion = nn.NLLLoss()

for epoch in range(4):
    train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val, 2)
loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
torch.cuda.synchronize()
print(f"gat train ok: test loss {loss_test:.4f} accuracy {acc_test:.4f}")
