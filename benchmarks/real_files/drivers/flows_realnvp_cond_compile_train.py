"""Corpus driver (kx's code): pytorch-flows' class-conditional RealNVP (ikostrikov/pytorch-flows,
flows.py: FlowSequential of num_blocks x (CouplingLayer: a float mask alternating 1 - mask per
block, tanh scale net and relu translate net on the masked inputs concatenated with the
conditioning vector, exp of the masked log-scale; BatchNormFlow) as main.py builds it for
--flow realnvp --cond, with one-hot class labels as cond_inputs, as for MNIST) trained as main.py
trains it: orthogonal init, Adam lr 1e-4 (weight decay 1e-6), -log_probs(batch, cond).mean(), a
smaller last batch per epoch (dynamic shapes), the BatchNormFlow momentum 0 / full-data forward /
momentum 1 pass after each epoch (with the conditioning tensor), eval-mode validation. The loss
function is torch.compile'd; a deep-copied eager twin trains on the same batches. Also checked:
inverting the trained compiled flow (mode='inverse') recovers the inputs. Data: a toy mixture
density (kx's code) with the mixture component as the class label. scipy is a stand-in."""

import copy

import _corpus21_support as S

S.install_scipy_standin()
import flows as fnn  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.manual_seed(1)
dev = S.device()
DIM, HID, BLOCKS, N, BATCH, EPOCHS, NCLS = S.pick(
    (64, 1024, 5, 30000 + 53, 1000, 3, 10), (6, 16, 2, 70, 32, 2, 3)
)

g = torch.Generator().manual_seed(0)
labels = torch.randint(0, NCLS, (N,), generator=g)
centers = 2.0 * torch.randn(NCLS, DIM, generator=g)
data = (S.toy_density(N, DIM, seed=0) + centers[labels]).to(dev)
cond = F.one_hot(labels, NCLS).float().to(dev)

mask = (torch.arange(0, DIM) % 2).to(dev).float()
modules = []
for _ in range(BLOCKS):
    modules += [fnn.CouplingLayer(DIM, HID, mask, NCLS, s_act="tanh", t_act="relu"), fnn.BatchNormFlow(DIM)]
    mask = 1 - mask
model = fnn.FlowSequential(*modules)
for module in model.modules():
    if isinstance(module, nn.Linear):
        nn.init.orthogonal_(module.weight)
        if hasattr(module, "bias") and module.bias is not None:
            module.bias.data.fill_(0)
model.to(dev)
twin = copy.deepcopy(model)
order = [torch.randperm(N, generator=torch.Generator().manual_seed(e)) for e in range(EPOCHS)]


def run(m, compiled):
    opt = torch.optim.Adam(m.parameters(), lr=1e-4, weight_decay=1e-6)

    def loss_fn(batch, c):
        return -m.log_probs(batch, c).mean()

    step = torch.compile(loss_fn) if compiled else loss_fn
    losses, vals = [], []
    for e in range(EPOCHS):
        m.train()
        for i in range(0, N, BATCH):
            idx = order[e][i : i + BATCH].to(dev)
            opt.zero_grad()
            loss = step(data[idx], cond[idx])
            losses.append(loss.item())
            loss.backward()
            opt.step()
        for module in m.modules():
            if isinstance(module, fnn.BatchNormFlow):
                module.momentum = 0
        with torch.no_grad():
            m(data, cond)
        for module in m.modules():
            if isinstance(module, fnn.BatchNormFlow):
                module.momentum = 1
        m.eval()
        with torch.no_grad():
            vals.append(m.log_probs(data[:1000], cond[:1000]).mean().item())
    return losses, vals


lc, vc = run(model, True)
le, ve = run(twin, False)
e_loss = max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(lc, le))
e_par = S.params_rel_err(model, twin)
e_val = max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(vc, ve))
with torch.no_grad():
    inv = torch.compile(lambda u, c: model(u, c, mode="inverse")[0])
    u, _ = model(data[:500], cond[:500])
    e_inv = S.rel_err(inv(u, cond[:500]), data[:500])
print(
    f"pytorch-flows conditional RealNVP ({BLOCKS} couplings, dim {DIM}, hidden {HID}, {NCLS} classes), {len(lc)} compiled steps: "
    f"loss {lc[0]:.3f} -> {lc[-1]:.3f}; compiled vs eager: losses {e_loss:.1e}, params {e_par:.1e}, val {e_val:.1e}; "
    f"compiled inverse round trip {e_inv:.1e}"
)
assert max(e_loss, e_par, e_val) < 5e-2 and e_inv < 1e-3, (e_loss, e_par, e_val, e_inv)
assert lc[-1] < lc[0], (lc[0], lc[-1])
S.sync()
print("flows_realnvp_cond_compile_train ok")
