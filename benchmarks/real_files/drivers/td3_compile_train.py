"""Corpus driver (kx's code): Scott Fujimoto's TD3 (sfujim/TD3, TD3.py: Actor / twin-Q Critic
MLPs, TD3.train: replay-buffer sample (numpy indices, torch.FloatTensor(...).to(device)),
target-policy smoothing noise (randn_like, clamp), clipped double-Q target under no_grad, critic
MSE loss + Adam step, and every policy_freq-th call a delayed actor update and Polyak averaging
of both target networks through .data.copy_ loops) with the agent's four networks (actor,
critic and their targets) wrapped in torch.compile after construction (compiling train() itself
fails in dynamo: it traces the buffer's numpy arrays as float64 tensors and torch.FloatTensor
rejects them), run as main.py runs it on a continuous-control task: 1000 random-action warm-up steps into
utils.ReplayBuffer, then an agent loop that picks actions with select_action (a host read:
.cpu().data.numpy()), adds Gaussian exploration noise, steps the environment and calls
train(replay_buffer, 256) once per step (critic.Q1 in the actor loss stays eager). A numpy pendulum (Gym's Pendulum-v1 dynamics)
stands in for gym. The smoothing noise is drawn in train()'s eager code, so a deep-copied eager
agent trained on the same samples (numpy / torch RNG states restored) is checked against it."""

import copy

import _corpus18_support as S
import numpy as np
import TD3
import torch
import utils

torch.manual_seed(0)
np.random.seed(0)
dev = "cuda"
assert TD3.device.type == dev, TD3.device  # the file picks cuda when it is available
WARMUP, STEPS, BATCH = S.pick((1000, 60, 256), (40, 6, 16))

env = S.ToyPendulum(seed=0)
policy = TD3.TD3(env.state_dim, env.action_dim, env.max_action)
buf = utils.ReplayBuffer(env.state_dim, env.action_dim)
state = env.reset()
for t in range(WARMUP):
    action = env.sample_action()
    next_state, reward, done = env.step(action)
    buf.add(state, action, next_state, reward, float(done))
    state = env.reset() if done else next_state

eager = copy.deepcopy(policy)  # the same agent, trained without compile on the same samples
for name in ("actor", "actor_target", "critic", "critic_target"):
    setattr(policy, name, torch.compile(getattr(policy, name)))
episode_reward = 0.0
for t in range(STEPS):
    action = (policy.select_action(np.array(state)) + np.random.normal(0, env.max_action * 0.1, size=1)).clip(
        -env.max_action, env.max_action
    )
    next_state, reward, done = env.step(action)
    buf.add(state, action, next_state, reward, float(done))
    state = env.reset() if done else next_state
    episode_reward += reward
    np_state, torch_state = np.random.get_state(), torch.get_rng_state()
    policy.train(buf, BATCH)
    np.random.set_state(np_state)
    torch.set_rng_state(torch_state)
    eager.train(buf, BATCH)

errs = [S.rel_err(p, q) for p, q in zip(policy.actor.parameters(), eager.actor.parameters())]
errs += [S.rel_err(p, q) for p, q in zip(policy.critic_target.parameters(), eager.critic_target.parameters())]
print(
    f"{WARMUP} warm-up + {STEPS} agent steps (train calls: {policy.total_it}), reward so far {episode_reward:.1f}; "
    f"actor / target-critic params compiled vs eager worst rel err {max(errs):.1e}"
)
assert policy.total_it == eager.total_it == STEPS and max(errs) < 1e-3, max(errs)
torch.cuda.synchronize()
print("td3_compile_train ok")
