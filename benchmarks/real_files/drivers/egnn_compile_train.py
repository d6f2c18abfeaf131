"""Corpus driver (kx's code): the E(n)-equivariant graph neural network of Satorras et al.
(vgsatorras/egnn, models/egnn_clean/egnn_clean.py: EGNN over E_GCL layers: edge MLP on
[h_i, h_j, |x_i - x_j|^2, edge_attr], optional attention gate, coordinate update
x_i += mean_j (x_i - x_j) phi_x(m_ij) via unsorted_segment_mean (scatter_add_ of data and of
ones), node update via unsorted_segment_sum, residual) under torch.compile, trained on a
QM9-shaped regression as main_qm9.py trains its model: batches of 96 fully connected
29-atom molecules (edges from the file's get_edges_batch), 5 atom types one-hot, 128 hidden, 7
layers with attention, a sum-pooled invariant head, L1 loss, Adam with weight decay 1e-16 and
cosine LR, a few steps. Synthetic molecules (target a function of pairwise distances) stand in
for QM9. Checked: the compiled model's outputs are E(3)-equivariant (rotating + translating the
input rotates + translates the output coordinates and leaves the invariant head unchanged) and
match eager."""

import _corpus18_support as S
import torch
import torch.nn.functional as F
from egnn_clean import EGNN, get_edges_batch

torch.manual_seed(0)
dev = "cuda"
B, N, FEAT, HID, LAYERS, STEPS = S.pick((96, 29, 5, 128, 7, 6), (4, 5, 5, 16, 2, 2))

edges, edge_attr = get_edges_batch(N, B)
edges = [e.to(dev) for e in edges]
edge_attr = edge_attr.to(dev)
h, x, y = (t.to(dev) for t in S.random_molecules(B, N, FEAT))

model = EGNN(
    in_node_nf=FEAT, hidden_nf=HID, out_node_nf=1, in_edge_nf=1, device=dev, n_layers=LAYERS, attention=True
)
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=5e-4, weight_decay=1e-16)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, STEPS)


def predict(m, h, x):
    node_out, x_out = m(h, x, edges, edge_attr)
    return node_out.view(B, N).sum(1), x_out


for step in range(STEPS):
    opt.zero_grad()
    pred, _ = predict(cmodel, h, x)
    loss = F.l1_loss(pred, y)
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step}: L1 {loss.item():.4f}")
    assert torch.isfinite(loss)

with torch.no_grad():
    q, _ = torch.linalg.qr(torch.randn(3, 3, device=dev))
    t = torch.randn(1, 3, device=dev)
    p1, x1 = predict(cmodel, h, x)
    p2, x2 = predict(cmodel, h, x @ q.T + t)
    pe, xe = predict(model, h, x)
e_inv, e_eq = S.rel_err(p2, p1), S.rel_err(x2, x1 @ q.T + t)
e_c = max(S.rel_err(p1, pe), S.rel_err(x1, xe))
print(
    f"{B} molecules x {N} atoms: invariance err {e_inv:.1e}, equivariance err {e_eq:.1e}, compiled vs eager {e_c:.1e}"
)
assert e_inv < 1e-3 and e_eq < 1e-3 and e_c < 1e-3, (e_inv, e_eq, e_c)
torch.cuda.synchronize()
print("egnn_compile_train ok")
