"""Corpus driver (kx's code): Ilya Kostrikov's pytorch-flows MAF (ikostrikov/pytorch-flows, flows.py:
FlowSequential of num_blocks x (MADE: masked linears built from get_mask degrees, the file's
MaskedLinear registered on torch.nn as nn.MaskedLinear, output split into m / a with chunk;
BatchNormFlow: batch statistics in training with in-place running-stat buffer updates and
batch_mean / batch_var stored as module attributes; Reverse: a numpy permutation index), and
log_probs summing the Gaussian base density and the log-Jacobians) trained as main.py trains
it: orthogonal init with zero biases, Adam lr 1e-4 (weight decay 1e-6), loss =
-model.log_probs(batch).mean(), the last batch of each epoch smaller (dynamic shapes), and
after each epoch main.py's BatchNormFlow momentum 0 / full-data forward / momentum 1 pass,
then an eval-mode validation log-likelihood. The loss function is torch.compile'd; a deep-
copied eager twin trains on the same batches. Data: a toy non-Gaussian density (kx's code) in
MINIBOONE's dimension (43). scipy (imported at the top of flows.py for LUInvertibleMM) is a
stand-in. Checked: per-step losses, final parameters, running statistics and the validation
log-likelihood close to eager, and the compiled model's likelihood better than at the start."""

import copy

import _corpus21_support as S

S.install_scipy_standin()
import flows as fnn  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

torch.manual_seed(1)
dev = S.device()
DIM, HID, BLOCKS, N, BATCH, EPOCHS = S.pick((43, 512, 5, 20000 + 37, 100 * 10, 3), (5, 16, 2, 70, 32, 2))

data = S.toy_density(N, DIM, seed=0).to(dev)
val = S.toy_density(S.pick(4000, 40), DIM, seed=1).to(dev)

modules = []
for _ in range(BLOCKS):
    modules += [fnn.MADE(DIM, HID, None, act="relu"), fnn.BatchNormFlow(DIM), fnn.Reverse(DIM)]
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
    f"pytorch-flows MAF ({BLOCKS} blocks, dim {DIM}, hidden {HID}), {len(lc)} compiled steps over {EPOCHS} epochs: "
    f"loss {lc[0]:.3f} -> {lc[-1]:.3f}, val log-lik {vc[0]:.3f} -> {vc[-1]:.3f}; compiled vs eager: "
    f"losses {e_loss:.1e}, params {e_par:.1e}, buffers {e_buf:.1e}, val {e_val:.1e}"
)
assert max(e_loss, e_par, e_buf, e_val) < 5e-2, (e_loss, e_par, e_buf, e_val)
assert lc[-1] < lc[0], (lc[0], lc[-1])
S.sync()
print("flows_maf_compile_train ok")
