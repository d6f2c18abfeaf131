"""Corpus driver (kx's code): DGCNN, dynamic graph CNN for point clouds (WangYueFt/dgcnn,
pytorch/model.py: get_graph_feature rebuilds a k-nearest-neighbour graph in feature space at
every EdgeConv layer (pairwise distances by matmul, topk, flattened gather with a batch offset
from torch.arange on a hard-coded cuda device, repeat / cat of edge features), Conv2d + BatchNorm
+ LeakyReLU and a max over neighbours, four EdgeConvs, Conv1d to 1024, max + avg pooling, an MLP
head with dropout) under torch.compile, trained as main.py trains it on ModelNet40: batches of
32 clouds of 1024 points, k = 20, label-smoothed cross entropy (util.py cal_loss), SGD with
momentum 0.9 and weight decay 1e-4 at lr 0.1 with cosine annealing, a few steps; then an eval
pass (BatchNorm running statistics) whose logits are checked against eager. Synthetic clouds
(one noisy ellipsoid per class) stand in for ModelNet40."""

from types import SimpleNamespace

import _corpus18_support as S
import torch
from dgcnn_model import DGCNN
from dgcnn_util import cal_loss

torch.manual_seed(0)
dev = "cuda"
B, NPTS, K, EMB, STEPS = S.pick((32, 1024, 20, 1024, 5), (4, 64, 8, 64, 2))
args = SimpleNamespace(k=K, emb_dims=EMB, dropout=0.5)

model = DGCNN(args, output_channels=40).to(dev)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 250, eta_min=1e-3)
model.train()
for step in range(STEPS):
    pts, label = S.random_point_clouds(B, NPTS, 40, seed=step)
    data, label = pts.to(dev).permute(0, 2, 1), label.to(dev)
    opt.zero_grad()
    logits = cmodel(data)
    loss = cal_loss(logits, label)
    loss.backward()
    opt.step()
    sched.step()
    acc = (logits.argmax(1) == label).float().mean()
    print(f"step {step}: loss {loss.item():.4f} train acc {acc.item():.3f}")
    assert torch.isfinite(loss)

model.eval()
pts, label = S.random_point_clouds(B, NPTS, 40, seed=99)
data = pts.to(dev).permute(0, 2, 1)
with torch.no_grad():
    err = S.rel_err(cmodel(data), model(data))
print(f"eval logits compiled vs eager rel err {err:.1e}")
assert err < 1e-3, err
torch.cuda.synchronize()
print("dgcnn_compile_train ok")
