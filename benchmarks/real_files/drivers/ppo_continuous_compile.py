"""Corpus driver (kx's code): PPO-PyTorch with a continuous action space (nikhilbarhate99/
PPO-PyTorch, PPO.py: ActorCritic's tanh actor giving the mean of a MultivariateNormal whose
covariance is diag(action_var) in act() and torch.diag_embed(action_var.expand_as(mean)) in
evaluate(), action_var a plain tensor attribute rebuilt by set_action_std; PPO.update()'s Monte
Carlo returns, clipped surrogate + value MSE - entropy loss for K_epochs with one Adam over two
parameter groups; decay_action_std between updates) run as its train.py runs it: the file's
hyperparameters (lr 3e-4 / 1e-3, gamma 0.99, K_epochs 80, eps_clip 0.2, action std 0.6 decayed by
0.05 per update to at least 0.1). The instance's policy.evaluate and policy_old.act are
torch.compile'd versions of themselves (the new action_var tensor after each decay is a changed
attribute), rollouts of different lengths give new shapes. The environment is kx's numpy
ToyReacher (one point mass in 3-D, 6-D observations). A deep-copied eager agent is updated on the
same rollouts. Checked: parameters after every update close to eager."""

import copy

import _corpus21_support as S
import numpy as np
import torch

torch.manual_seed(0)
import PPO as ppo  # noqa: E402  (prints the device at import)

DIM = 3
ROLLOUTS = S.pick([1000, 1000, 600, 1000, 400], [40, 30])
K_EPOCHS = S.pick(80, 3)

agent = ppo.PPO(2 * DIM, DIM, 3e-4, 1e-3, 0.99, K_EPOCHS, 0.2, True, 0.6)
twin = copy.deepcopy(agent)
agent.policy.evaluate = torch.compile(agent.policy.evaluate)
agent.policy_old.act = torch.compile(agent.policy_old.act)

env = S.ToyReacher(1, DIM, horizon=100, seed=0)
state, errs, rets = env.obs()[0], [], []
for n in ROLLOUTS:
    ret = 0.0
    for _ in range(n):
        action = agent.select_action(state)
        obs, reward, done = env.step(action[None])
        state = obs[0]
        agent.buffer.rewards.append(float(reward[0]))
        agent.buffer.is_terminals.append(bool(done[0]))
        ret += float(reward[0])
    rets.append(ret / n)
    for f in ("states", "actions", "logprobs", "rewards", "state_values", "is_terminals"):
        setattr(twin.buffer, f, list(getattr(agent.buffer, f)))
    agent.update()
    twin.update()
    errs.append(S.params_rel_err(agent.policy, twin.policy))
    agent.decay_action_std(0.05, 0.1)
    twin.decay_action_std(0.05, 0.1)
print(
    f"PPO-PyTorch continuous on ToyReacher ({DIM}-D): {len(ROLLOUTS)} updates x {K_EPOCHS} epochs on rollouts {ROLLOUTS}, "
    f"mean reward per step {rets[0]:.3f} -> {rets[-1]:.3f}, action std now {agent.action_std}; "
    f"compiled vs eager params after each update max {max(errs):.1e}"
)
assert max(errs) < 5e-2, errs
assert np.isfinite(rets).all()
S.sync()
print("ppo_continuous_compile ok")
