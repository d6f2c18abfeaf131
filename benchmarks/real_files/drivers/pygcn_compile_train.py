"""Corpus driver (kx's code): Thomas Kipf's pygcn (tkipf/pygcn, pygcn/models.py: a two-layer
GCN, pygcn/layers.py: GraphConvolution = torch.mm with the weight, then torch.spmm with the
sparse normalised adjacency, plus bias; ReLU, dropout, log_softmax) trained as pygcn/train.py
trains it (Adam lr 0.01, weight decay 5e-4, F.nll_loss on the training nodes, accuracy on
the validation nodes read back with .item(), model.train() / model.eval() switching) with the
model wrapped in torch.compile, on three random planted-partition graphs of different sizes
(Cora-, Citeseer- and PubMed-like node / feature / class counts, so the compiled model sees new
shapes: dynamic shapes). pygcn builds the adjacency as a sparse COO tensor; torch.compile
refuses sparse inputs (the whole forward would run eagerly), so the driver hands torch.spmm
the same normalised adjacency densified (about 1.6 GB for the PubMed-sized graph). Dropout 0 so that a deep-copied eager twin trained the same
way can be compared. Checked: per-epoch losses, final parameters and test accuracies close to
eager, and the compiled model well above chance on each graph."""

import copy

import _corpus20_support as S
from _corpus_support import find_on_path

S.bare_package("pygcn", find_on_path("pygcn"))  # pygcn/__init__.py imports utils.py, which imports scipy
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402
from pygcn.models import GCN  # noqa: E402

torch.manual_seed(0)
dev = S.device()
GRAPHS = S.pick([(2708, 1433, 7, 4), (3327, 3703, 6, 3), (19717, 500, 3, 5)], [(120, 24, 3, 4), (90, 30, 4, 3)])
HID, EPOCHS = S.pick((16, 60), (8, 8))


def accuracy(output, labels):  # pygcn/utils.py's accuracy (utils.py imports scipy: not imported here)
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    return correct.sum() / len(labels)


report, worst = [], 0.0
for gi, (n, nfeat, ncls, deg) in enumerate(GRAPHS):
    features, adj, labels = S.random_graph(n, nfeat, ncls, deg, dev, seed=gi)
    adj = adj.to_dense()  # torch.compile does not take sparse tensors (the whole forward would run eager)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(gi)).to(dev)
    idx_train, idx_val, idx_test = perm[: n // 10], perm[n // 10 : n // 5], perm[n // 2 :]
    torch.manual_seed(gi)
    model = GCN(nfeat=nfeat, nhid=HID, nclass=ncls, dropout=0.0).to(dev)
    twin = copy.deepcopy(model)
    res = {}
    for name, m, base in (("compiled", torch.compile(model), model), ("eager", twin, twin)):
        optimizer = optim.Adam(base.parameters(), lr=0.01, weight_decay=5e-4)
        losses = []
        for epoch in range(EPOCHS):
            m.train()
            optimizer.zero_grad()
            output = m(features, adj)
            loss_train = F.nll_loss(output[idx_train], labels[idx_train])
            loss_train.backward()
            optimizer.step()
            m.eval()
            output = m(features, adj)
            acc_val = accuracy(output[idx_val], labels[idx_val])
            losses.append(loss_train.item())
            _ = acc_val.item()
        m.eval()
        res[name] = (losses, accuracy(m(features, adj)[idx_test], labels[idx_test]).item())
    e_loss = max(abs(a - b) / abs(b) for a, b in zip(res["compiled"][0], res["eager"][0]))
    e_par = max(S.rel_err(p, q) for p, q in zip(model.parameters(), twin.parameters()))
    worst = max(worst, e_loss, e_par, abs(res["compiled"][1] - res["eager"][1]))
    report.append((n, res["compiled"][0][0], res["compiled"][0][-1], res["compiled"][1], ncls))
print(
    f"pygcn GCN (hidden {HID}), {EPOCHS} compiled epochs on {len(GRAPHS)} graphs: "
    + "; ".join(f"{n} nodes loss {a:.3f} -> {b:.3f} test acc {c:.2f}" for n, a, b, c, _ in report)
    + f"; compiled vs eager worst (losses / params / acc) {worst:.1e}"
)
assert worst < 5e-2, worst
assert S.small() or all(acc > 1.2 / k for *_, acc, k in report), report
S.sync()
print("pygcn_compile_train ok")
