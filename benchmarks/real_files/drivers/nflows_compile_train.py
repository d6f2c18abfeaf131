"""Corpus driver (kx's code): Andrej Karpathy's normalizing flows (karpathy/pytorch-normalizing-flows,
nflib/flows.py + nets.py + made.py: NormalizingFlowModel over a list of flows, each forward
returning (z, log_det) with a Python loop accumulating log-determinants; ActNorm with a
data-dependent first-batch initialisation that rewrites its parameters' .data behind a Python
flag; RealNVP AffineHalfFlow coupling layers (strided half splits, parity swaps, MLP
conditioners); MAF with a MADE ARMLP whose inverse decodes one dimension at a time in a Python
loop with in-place column writes) trained as the repo's notebook trains them on 2-D two-moons
data (prior a standard normal, loss = -(prior_logprob + log_det).sum(), Adam), forward wrapped
in kx's torch.compile and the sampling inverse (model.backward) compiled too. Default device set
to the GPU (the file's torch.zeros(m) calls take it). The first batch's ActNorm initialisation is run
eagerly before compiling (under Inductor, compiling it made the parameters diverge from eager
on this CPU; aot_eager matched). An eager twin (deep copy made after that) is trained on the same batches; parameters, log-likelihood and the sampled inverse
are checked against it."""

import copy
import itertools

import _corpus19_support as S
import torch
from nflib.flows import MAF, ActNorm, AffineHalfFlow, NormalizingFlowModel
from torch.distributions import MultivariateNormal

torch.manual_seed(0)
dev = "cuda"
torch.set_default_device(dev)
N_DATA, BATCH, STEPS, K, NH = S.pick((16384, 128, 200, 9, 24), (512, 64, 6, 3, 8))
data = torch.from_numpy(S.two_moons(N_DATA)).to(dev)
prior = MultivariateNormal(torch.zeros(2), torch.eye(2))


def realnvp():
    flows = [AffineHalfFlow(dim=2, parity=i % 2, nh=NH) for i in range(K)]
    norms = [ActNorm(dim=2) for _ in flows]
    return NormalizingFlowModel(prior, list(itertools.chain(*zip(norms, flows))))


def maf():
    return NormalizingFlowModel(prior, [MAF(dim=2, parity=i % 2, nh=NH) for i in range(K)])


for name, build in (("RealNVP", realnvp), ("MAF", maf)):
    model = build()
    with torch.no_grad():  # ActNorm's data-dependent init on the first batch, eagerly: under Inductor
        model(data[:BATCH])  # its .data rewrite inside the compiled forward diverges (found here)
    twin = copy.deepcopy(model)
    fwd = torch.compile(model)
    opt_c = torch.optim.Adam(model.parameters(), lr=1e-4 if S.small() else 1e-3, weight_decay=1e-5)
    opt_e = torch.optim.Adam(twin.parameters(), lr=1e-4 if S.small() else 1e-3, weight_decay=1e-5)
    for step in range(STEPS):
        x = data[(step * BATCH) % N_DATA :][:BATCH]
        for f, opt in ((fwd, opt_c), (twin, opt_e)):
            zs, prior_logprob, log_det = f(x)
            loss = -torch.sum(prior_logprob + log_det)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if step == 0:
            first = loss.item() / BATCH
    with torch.no_grad():
        _, lp_c, ld_c = fwd(data[:1024])
        _, lp_e, ld_e = twin(data[:1024])
        nll_c, nll_e = -(lp_c + ld_c), -(lp_e + ld_e)
        z = prior.sample((256,))
        xs_c, _ = torch.compile(model.backward)(z)
        xs_e, _ = twin.backward(z)
    e_par = max(S.rel_err(p, q) for p, q in zip(model.parameters(), twin.parameters()))
    e_nll, e_inv = S.rel_err(nll_c, nll_e), S.rel_err(xs_c[-1], xs_e[-1])
    print(
        f"{name}: {len(model.flow.flows)} flows, {STEPS} compiled steps, NLL/point {first:.3f} -> "
        f"{nll_c.mean().item():.3f}; compiled vs eager: params {e_par:.1e}, NLL {e_nll:.1e}, inverse samples {e_inv:.1e}"
    )
    assert e_par < 1e-3 and e_nll < 1e-3 and e_inv < 1e-3, (e_par, e_nll, e_inv)
torch.cuda.synchronize()
print("nflows_compile_train ok")
