"""Corpus driver (kx's code): Bai, Kolter & Koltun's temporal convolutional network
(locuslab/TCN, TCN/tcn.py + TCN/adding_problem/: TemporalConvNet of TemporalBlocks, each two
weight_norm'd dilated causal Conv1d (dilation 2^i, padding (k - 1) * 2^i) with Chomp1d slicing
off the right padding, ReLU, dropout and a 1x1 downsample residual, then a Linear on the last time
step) trained as add_test.py trains it on the adding problem: utils.data_generator's random
sequences (two marked positions per sequence, target their sum), Adam, MSE, gradient clipping,
an evaluate() pass under no_grad; the model wrapped in kx's torch.compile. An eager twin (same state dict) is
trained on the same batches and checked against it."""

import _corpus19_support as S
import numpy as np
import torch
import torch.nn.functional as F
import torch.optim as optim
from TCN.adding_problem.model import TCN
from TCN.adding_problem.utils import data_generator

torch.manual_seed(1111)
np.random.seed(1111)
dev = "cuda"
N_TRAIN, N_TEST, SEQ, LEVELS, NHID, KSIZE, BATCH, STEPS = S.pick(
    (4096, 1000, 400, 8, 30, 7, 32, 60), (64, 16, 48, 3, 8, 3, 16, 4)
)
X_train, Y_train = data_generator(N_TRAIN, SEQ)
X_test, Y_test = data_generator(N_TEST, SEQ)
X_train, Y_train, X_test, Y_test = (t.to(dev) for t in (X_train, Y_train, X_test, Y_test))

model = TCN(2, 1, [NHID] * LEVELS, kernel_size=KSIZE, dropout=0.0).to(dev)
eager = TCN(2, 1, [NHID] * LEVELS, kernel_size=KSIZE, dropout=0.0).to(
    dev
)  # weight_norm modules refuse deepcopy
eager.load_state_dict(model.state_dict())
compiled = torch.compile(model)
opts = [optim.Adam(m.parameters(), lr=4e-3) for m in (model, eager)]

losses = []
for step in range(STEPS):
    i = (step * BATCH) % N_TRAIN
    x, y = X_train[i : i + BATCH], Y_train[i : i + BATCH]
    for net, opt in zip((compiled, eager), opts):
        net.train()
        opt.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        if net is compiled:
            losses.append(loss.item())

with torch.no_grad():
    compiled.eval()
    eager.eval()
    out_c, out_e = compiled(X_test), eager(X_test)
    test_loss = F.mse_loss(out_c, Y_test).item()
e_out = S.rel_err(out_c, out_e)
e_par = max(S.rel_err(p, q) for p, q in zip(model.parameters(), eager.parameters()))
print(
    f"TCN {LEVELS} levels x {NHID}, k {KSIZE}, seq {SEQ}: {STEPS} compiled steps, loss {losses[0]:.4f} -> "
    f"{losses[-1]:.4f}, test MSE {test_loss:.4f}; compiled vs eager: test outputs {e_out:.1e}, params {e_par:.1e}"
)
assert e_out < 1e-3 and e_par < 1e-3, (e_out, e_par)
torch.cuda.synchronize()
print("tcn_adding_compile_train ok")
