"""Corpus driver (kx's code): Scott Fujimoto's TD3+BC offline RL (sfujim/TD3_BC, TD3_BC.py: Actor
(256-256, max_action * tanh), twin-Q Critic with a separate Q1 method, and TD3_BC.train():
replay_buffer.sample, target policy smoothing with clamped randn_like noise, clipped double-Q
target, critic MSE + Adam, and every policy_freq iterations the actor loss -lambda * Q1(s, pi(s))
.mean() + MSE(pi(s), a) with lambda = alpha / |Q|.mean().detach(), then Polyak updates of both
targets through param.data.copy_; utils.py: ReplayBuffer with convert_D4RL and normalize_states)
run as main.py runs it: the data set loaded with convert_D4RL, states normalised, train() called
repeatedly with the file's defaults. The actor, critic and their targets are compiled in place
(nn.Module.compile) and critic.Q1 is replaced by its torch.compile'd self, so train() (the file's
own, with its .data.copy_ target updates and the total_it counter) runs the compiled graphs
forward and backward; the batch size cycles through four values (dynamic shapes). The data set
is kx's: ToyReacher rollouts of a noisy proportional behaviour policy in D4RL's dictionary
layout. A deep-copied eager agent trains on the same batches (numpy and torch seeds reset).
Checked: actor / critic parameters and the actors' actions on held-out states close to eager,
and the compiled actor closer to the behaviour actions than at the start."""

import copy

import _corpus21_support as S
import numpy as np
import TD3_BC  # noqa: E402
import torch
import utils  # noqa: E402

torch.manual_seed(0)
DIM = 3
N, ITERS = S.pick((100_000, 1000), (300, 6))
SIZES = S.pick([256, 100, 256, 512], [16, 8, 12])

s, a, s2, r, d = S.offline_dataset(N, 2 * DIM, DIM, seed=0)
rb = utils.ReplayBuffer(2 * DIM, DIM, max_size=N)
rb.convert_D4RL({"observations": s, "actions": a, "next_observations": s2, "rewards": r, "terminals": d})
mean, std = rb.normalize_states()

policy = TD3_BC.TD3_BC(2 * DIM, DIM, 1.0)
twin = copy.deepcopy(policy)
for m in (policy.actor, policy.actor_target, policy.critic, policy.critic_target):
    m.compile()
policy.critic.Q1 = torch.compile(policy.critic.Q1)

dev = next(policy.actor.parameters()).device
probe = torch.tensor(rb.state[:512], dtype=torch.float32, device=dev)
probe_a = torch.tensor(rb.action[:512], dtype=torch.float32, device=dev)
with torch.no_grad():
    bc0 = (policy.actor(probe) - probe_a).pow(2).mean().item()
for agent in (policy, twin):
    np.random.seed(0)
    torch.manual_seed(1)
    for it in range(ITERS):
        agent.train(rb, batch_size=SIZES[it % len(SIZES)])
e_act = S.params_rel_err(policy.actor, twin.actor)
e_crit = S.params_rel_err(policy.critic, twin.critic)
with torch.no_grad():
    e_out = S.rel_err(policy.actor(probe), twin.actor(probe))
    bc1 = (policy.actor(probe) - probe_a).pow(2).mean().item()
print(
    f"TD3+BC on a {N}-transition toy data set: {ITERS} compiled train() calls (batches {SIZES}, total_it {policy.total_it}): "
    f"behaviour MSE {bc0:.4f} -> {bc1:.4f}; compiled vs eager: actor {e_act:.1e}, critic {e_crit:.1e}, actions {e_out:.1e}"
)
assert max(e_act, e_crit, e_out) < 5e-2, (e_act, e_crit, e_out)
assert bc1 < bc0, (bc0, bc1)
S.sync()
print("td3bc_compile_train ok")
