"""Corpus driver (kx's code): sampling from pytorch-flows' MAF under torch.compile
(ikostrikov/pytorch-flows, flows.py: FlowSequential.sample(noise=...) runs forward(mode='inverse')
through the blocks in reverse: Reverse's inverse numpy permutation, BatchNormFlow's inverse
with eval-mode running statistics, and MADE's inverse, a Python loop over the input columns that
re-runs the masked network on the partial sample and writes one column per step with
x[:, i_col] = ... (an autoregressive decode: num_inputs x num_blocks steps, unrolled by Dynamo)).
The MAF is built and briefly trained (eagerly) as main.py does (MADE / BatchNormFlow / Reverse
blocks, orthogonal init, Adam, then the momentum 0 full-data pass that sets the running
statistics), then model.sample is torch.compile'd and called with given noise for two sample
counts (dynamic shapes). Checked: compiled samples equal eager model.sample on the same noise,
and the forward (density) direction maps the samples back to the noise. scipy is a stand-in."""

import _corpus21_support as S

S.install_scipy_standin()
import flows as fnn  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

torch.manual_seed(1)
dev = S.device()
DIM, HID, BLOCKS, N, STEPS, COUNTS = S.pick(
    (21, 512, 5, 20000, 300, [1000, 4096]), (4, 16, 2, 64, 4, [8, 13])
)

data = S.toy_density(N, DIM, seed=0).to(dev)
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
opt = torch.optim.Adam(model.parameters(), lr=1e-4, weight_decay=1e-6)
model.train()
g = torch.Generator().manual_seed(0)
for _ in range(STEPS):
    batch = data[torch.randint(0, N, (min(1000, N),), generator=g).to(dev)]
    opt.zero_grad()
    loss = -model.log_probs(batch).mean()
    loss.backward()
    opt.step()
for module in model.modules():
    if isinstance(module, fnn.BatchNormFlow):
        module.momentum = 0
with torch.no_grad():
    model(data)
for module in model.modules():
    if isinstance(module, fnn.BatchNormFlow):
        module.momentum = 1
model.eval()

sample = torch.compile(model.sample)
errs, trips = [], []
with torch.no_grad():
    for n in COUNTS:
        noise = torch.randn(n, DIM, generator=g).to(dev)
        got = sample(noise=noise)
        want = model.sample(noise=noise)
        errs.append(S.rel_err(got, want))
        trips.append(S.rel_err(model(got)[0], noise))
print(
    f"pytorch-flows MAF ({BLOCKS} blocks, dim {DIM}, hidden {HID}; loss after {STEPS} eager steps {loss.item():.3f}): "
    f"compiled sample() of {COUNTS} draws vs eager {max(errs):.1e}, forward round trip to the noise {max(trips):.1e}"
)
assert max(errs) < 1e-3 and max(trips) < 1e-3, (errs, trips)
S.sync()
print("flows_maf_compile_sample ok")
