"""Corpus driver (kx's code): Scott Fujimoto's continuous BCQ (sfujim/BCQ, continuous_BCQ/BCQ.py:
a perturbation Actor (phi * max_action * tanh added to the proposed action, clamped), a twin-Q
Critic with a q1 method, and a conditional VAE (encoder with clamped log-std and a randn_like
reparameterisation; decode() draws its latent with torch.randn(...).clamp(-0.5, 0.5) when none is
given); BCQ.train(replay_buffer, iterations, batch_size): per iteration the VAE loss (recon MSE +
0.5 KL), the critic target from 10 VAE-decoded, perturbed actions per next state
(repeat_interleave) with the soft clipped double-Q mix lmbda * min + (1 - lmbda) * max and a max
over the 10 candidates, the critic MSE, the actor's DPG loss through critic.q1, Polyak updates via
param.data.copy_; continuous_BCQ/utils.py: ReplayBuffer) called as main.py calls it (defaults:
lr 1e-3, tau 0.005, lmbda 0.75, phi 0.05, batch 100). The actor, critic, VAE and targets are
compiled in place (nn.Module.compile) and vae.decode / critic.q1 are replaced by their
torch.compile'd selves, so the file's own train() runs compiled graphs forward and backward;
torch._inductor.config.fallback_random keeps the compiled random draws equal to eager. Two train()
calls with different batch sizes (dynamic shapes). The data are kx's ToyReacher rollouts of a
noisy proportional behaviour policy added through ReplayBuffer.add. A deep-copied eager agent
trains on the same batches (numpy / torch seeds reset). Checked: actor, critic and VAE
parameters close to eager, and select_action (100 VAE candidates, argmax of q1) agreeing."""

import copy

import _corpus21_support as S
import BCQ  # noqa: E402
import numpy as np
import torch
import torch._inductor.config
import utils  # noqa: E402

torch._inductor.config.fallback_random = True
torch.manual_seed(0)
dev = S.device()
DIM = 3
N, CALLS = S.pick((100_000, [(500, 100), (300, 256)]), (200, [(3, 16), (2, 8)]))

s, a, s2, r, d = S.offline_dataset(N, 2 * DIM, DIM, seed=0)
rb = utils.ReplayBuffer(2 * DIM, DIM, dev, max_size=N)
for i in range(N):
    rb.add(s[i], a[i], s2[i], r[i], d[i])

agent = BCQ.BCQ(2 * DIM, DIM, 1.0, dev)
twin = copy.deepcopy(agent)
for m in (agent.actor, agent.actor_target, agent.critic, agent.critic_target, agent.vae):
    m.compile()
agent.vae.decode = torch.compile(agent.vae.decode)
agent.critic.q1 = torch.compile(agent.critic.q1)
for ag in (agent, twin):
    np.random.seed(0)
    torch.manual_seed(1)
    for iters, batch in CALLS:
        ag.train(rb, iters, batch_size=batch)
errs = {k: S.params_rel_err(getattr(agent, k), getattr(twin, k)) for k in ("actor", "critic", "vae")}
probe = s[:8]
acts = []
for ag in (agent, twin):
    torch.manual_seed(2)
    acts.append(np.stack([ag.select_action(p) for p in probe]))
e_sel = float(np.abs(acts[0] - acts[1]).max())
print(
    f"continuous BCQ on {N} toy transitions: train() calls {CALLS} (iterations, batch); compiled vs eager params "
    + ", ".join(f"{k} {v:.1e}" for k, v in errs.items())
    + f"; select_action max diff {e_sel:.1e}"
)
assert max(errs.values()) < 5e-2 and e_sel < 0.1, (errs, e_sel)
S.sync()
print("bcq_continuous_compile_train ok")
