"""Corpus driver (kx's code): Nikhil Barhate's PPO-PyTorch with a discrete action space
(nikhilbarhate99/PPO-PyTorch, PPO.py: ActorCritic's 64-64 tanh actor ending in Softmax and its
critic, act() sampling a Categorical, evaluate() returning log-probs, values and entropy; the PPO
class's RolloutBuffer lists, select_action, and update(): Monte Carlo returns over the reversed
reward / terminal lists, normalised, advantages from the stored values, K_epochs of the clipped
surrogate + 0.5 MSE value loss - 0.01 entropy through one Adam with actor / critic parameter
groups, then policy_old.load_state_dict) run as its train.py runs it on CartPole: the file's
hyperparameters (lr 3e-4 / 1e-3, gamma 0.99, K_epochs 80, eps_clip 0.2), an update after each
rollout. The instance's policy.evaluate and policy_old.act are replaced by torch.compile'd
versions of themselves (update() and select_action() stay the file's own), and rollouts of
different lengths give new shapes (dynamic shapes). The environment is kx's numpy cart-pole
with gym's CartPole-v1 dynamics. A deep-copied eager agent is updated on the same rollouts.
Checked: parameters after every update close to eager (episode lengths early / late are
reported, not asserted)."""

import copy

import _corpus21_support as S
import numpy as np
import torch

torch.manual_seed(0)
import PPO as ppo  # noqa: E402  (prints the device at import)

ROLLOUTS = S.pick([1600, 1200, 1600, 800, 1600, 1600], [40, 30])
K_EPOCHS = S.pick(80, 3)

agent = ppo.PPO(4, 2, 3e-4, 1e-3, 0.99, K_EPOCHS, 0.2, False)
twin = copy.deepcopy(agent)
agent.policy.evaluate = torch.compile(agent.policy.evaluate)
agent.policy_old.act = torch.compile(agent.policy_old.act)

env = S.ToyCartPole(seed=0)
state, ep_len, lens, errs = env.reset(), 0, [], []
for n in ROLLOUTS:
    for _ in range(n):
        action = agent.select_action(state)
        state, reward, done = env.step(action)
        agent.buffer.rewards.append(reward)
        agent.buffer.is_terminals.append(done)
        ep_len += 1
        if done:
            lens.append(ep_len)
            state, ep_len = env.reset(), 0
    for f in ("states", "actions", "logprobs", "rewards", "state_values", "is_terminals"):
        setattr(twin.buffer, f, list(getattr(agent.buffer, f)))
    agent.update()
    twin.update()
    errs.append(S.params_rel_err(agent.policy, twin.policy))
first, last = np.mean(lens[: max(1, len(lens) // 4)]), np.mean(lens[-max(1, len(lens) // 4) :])
print(
    f"PPO-PyTorch discrete on toy CartPole: {len(ROLLOUTS)} updates x {K_EPOCHS} epochs on rollouts {ROLLOUTS}, "
    f"{len(lens)} episodes, mean length {first:.1f} -> {last:.1f}; compiled vs eager params after each update max {max(errs):.1e}"
)
assert max(errs) < 5e-2, errs
S.sync()
print("ppo_discrete_compile ok")
