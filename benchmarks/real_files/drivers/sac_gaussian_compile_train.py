"""Corpus driver (kx's code): soft actor-critic with a Gaussian policy and automatic entropy tuning
(pranz24/pytorch-soft-actor-critic, sac.py: SAC.update_parameters samples the replay memory,
computes the soft clipped double-Q target under no_grad with the policy's reparameterised
tanh-squashed sample and its log-prob, two MSE critic losses through one Adam, the policy loss
alpha * log_pi - min Q through another, the temperature loss on log_alpha through a third, then
soft_update of the target critic through .data.copy_ and five .item() reads; model.py:
GaussianPolicy.sample (Normal.rsample, tanh, log-prob with the action-bound correction, clamped
log std) and the twin QNetwork; replay_memory.py: ReplayMemory with random.sample) run as main.py
runs it on kx's ToyReacher (3-D point mass, goal reaching). The critic and target critic are
compiled in place (nn.Module.compile) and policy.sample is replaced by its torch.compile'd self,
so update_parameters and select_action (batch 1) run compiled graphs forward and backward; the
batch size cycles through four values (dynamic shapes). Checked: reward of the trained agent
against the random-action phase, and the compiled policy's deterministic action against an eager
call of the same method."""

import _corpus22_support as S
import numpy as np
import torch
from replay_memory import ReplayMemory  # noqa: E402
from sac import SAC  # noqa: E402

torch.manual_seed(0)
np.random.seed(0)
DIM = 3
STEPS, START, HID = S.pick((2500, 500, 256), (40, 12, 16))
BATCHES = S.pick([256, 128, 256, 200], [8, 6])

agent = SAC(2 * DIM, S.box_space(DIM), S.sac_args("Gaussian", HID, True))
agent.critic.compile()
agent.critic_target.compile()
eager_sample = agent.policy.sample
agent.policy.sample = torch.compile(agent.policy.sample)
memory = ReplayMemory(1_000_000, seed=0)

rand_reward, _, _ = S.run_sac(agent, ReplayMemory(10_000, seed=1), DIM, START, START, BATCHES, seed=5)
reward, losses, updates = S.run_sac(agent, memory, DIM, STEPS, START, BATCHES, seed=0)
probe = torch.as_tensor(
    np.random.default_rng(3).uniform(-1, 1, (64, 2 * DIM)), dtype=torch.float32, device=agent.device
)
with torch.no_grad():
    err = S.rel_err(agent.policy.sample(probe)[2], eager_sample(probe)[2])
S.sync()
print(
    f"SAC Gaussian (auto entropy) on ToyReacher {DIM}-D: {updates} compiled updates (batches {BATCHES}); "
    f"mean reward random {rand_reward:.3f} -> trained (last quarter) {reward:.3f}; losses q1 {losses[0]:.3f} pi {losses[2]:.3f} "
    f"alpha {losses[4]:.3f}; compiled vs eager deterministic action rel err {err:.1e}"
)
