"""Corpus driver (kx's code): pytorch-flows' 'maf-split-glow' flow (ikostrikov/pytorch-flows,
flows.py: FlowSequential of num_blocks x (MADESplit: separate masked scale (tanh) and shift
(relu) MADE networks, the file's MaskedLinear registered as nn.MaskedLinear; BatchNormFlow with
in-place running-stat updates and batch statistics stored on the module; InvertibleMM: a dense
orthogonally initialised weight whose log-Jacobian is torch.slogdet(W) repeated per row)) as
main.py builds it for --flow maf-split-glow, trained as main.py trains it: orthogonal init,
Adam lr 1e-4 (weight decay 1e-6), -log_probs(batch).mean(), a smaller last batch per epoch
(dynamic shapes), the BatchNormFlow momentum 0 / full-data forward / momentum 1 pass after each
epoch, eval-mode validation. The loss function is torch.compile'd (slogdet and its backward
inside the graph); a deep-copied eager twin trains on the same batches. Data: a toy
non-Gaussian density (kx's code) in HEPMASS's dimension (21). scipy is a stand-in. Checked:
per-step losses, final parameters, running statistics and validation log-likelihood close to
eager, and the compiled model's loss lower at the end."""

import copy

import _corpus21_support as S

S.install_scipy_standin()
import flows as fnn  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

torch.manual_seed(1)
dev = S.device()
DIM, HID, BLOCKS, N, BATCH, EPOCHS = S.pick((21, 512, 5, 20000 + 37, 1000, 3), (5, 16, 2, 70, 32, 2))

data = S.toy_density(N, DIM, seed=0).to(dev)
val = S.toy_density(S.pick(4000, 40), DIM, seed=1).to(dev)

modules = []
for _ in range(BLOCKS):
    modules += [
        fnn.MADESplit(DIM, HID, None, s_act="tanh", t_act="relu"),
        fnn.BatchNormFlow(DIM),
        fnn.InvertibleMM(DIM),
    ]
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

    def loss_fn(batch):
        return -m.log_probs(batch).mean()

    step = torch.compile(loss_fn) if compiled else loss_fn
    losses, vals = [], []
    for e in range(EPOCHS):
        m.train()
        for i in range(0, N, BATCH):
            batch = data[order[e][i : i + BATCH].to(dev)]
            opt.zero_grad()
            loss = step(batch)
            losses.append(loss.item())
            loss.backward()
            opt.step()
        for module in m.modules():
            if isinstance(module, fnn.BatchNormFlow):
                module.momentum = 0
        with torch.no_grad():
            m(data)
        for module in m.modules():
            if isinstance(module, fnn.BatchNormFlow):
                module.momentum = 1
        m.eval()
        with torch.no_grad():
            vals.append(m.log_probs(val).mean().item())
    return losses, vals


lc, vc = run(model, True)
le, ve = run(twin, False)
e_loss = max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(lc, le))
e_par = S.params_rel_err(model, twin)
e_buf = S.rel_err(
    torch.cat([b.flatten().float() for b in model.buffers()]),
    torch.cat([b.flatten().float() for b in twin.buffers()]),
)
e_val = max(abs(a - b) / max(abs(b), 1.0) for a, b in zip(vc, ve))
print(
    f"pytorch-flows MADESplit + InvertibleMM flow ({BLOCKS} blocks, dim {DIM}, hidden {HID}), {len(lc)} compiled steps over {EPOCHS} epochs: "
    f"loss {lc[0]:.3f} -> {lc[-1]:.3f}, val log-lik {vc[0]:.3f} -> {vc[-1]:.3f}; compiled vs eager: "
    f"losses {e_loss:.1e}, params {e_par:.1e}, buffers {e_buf:.1e}, val {e_val:.1e}"
)
assert max(e_loss, e_par, e_buf, e_val) < 5e-2, (e_loss, e_par, e_buf, e_val)
assert lc[-1] < lc[0], (lc[0], lc[-1])
S.sync()
print("flows_mafsplit_glow_compile_train ok")
