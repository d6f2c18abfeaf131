"""Corpus driver (kx's code): CleanRL's TD3 (vwxyzjn/cleanrl, cleanrl/td3_continuous_action.py:
the QNetwork (obs ++ action -> 256 -> 256 -> 1) and deterministic Actor (tanh output rescaled by
registered action_scale / action_bias buffers) and the script's __main__ loop, transcribed
here: exploration with Gaussian noise scaled by action_scale, a critic update on twin Q
networks against target networks with clipped target-policy smoothing noise, a delayed actor
update every policy_frequency steps and Polyak target updates through param.data.copy_,
hyperparameters from the script's own Args dataclass). The exploration policy is
torch.compile(mode="reduce-overhead") (CUDA graphs on the GPU), the critic and actor updates are
torch.compile'd whole (zero_grad, backward, Adam step and the target copies inside; graph
breaks at backward); gymnasium / tyro / tensorboard / cleanrl_utils are stand-ins
(_corpus20_support), the environment is kx's numpy ToyReacher and the replay buffer a tensor
stand-in for SB3's. Inductor's random ops fall back to eager (fallback_random) so a
deep-copied eager twin trained on the same batches sees the same noise. Checked: the twin's
critic / actor losses and final parameters close to the compiled run's; the compiled policy
minus the eager actor's action is one noise vector shared by every env row (as
the script's torch.normal(0, action_scale * noise) draws it)."""

import copy

import _corpus20_support as S

S.install_cleanrl_standins()
import numpy as np  # noqa: E402
import td3_continuous_action as td3  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = S.device()
NENV, DIM, COLLECT, UPDATES = S.pick((16, 8, 300, 60), (2, 2, 20, 6))
args = td3.Args()
BATCH = S.pick(args.batch_size, 16)

envs = S.box_envs(2 * DIM, DIM, n_envs=NENV)
env = S.ToyReacher(NENV, DIM, horizon=100, seed=0)
actor = td3.Actor(envs).to(dev)


def explore(obs):
    actions = actor(obs)
    return actions + torch.normal(0, actor.action_scale * args.exploration_noise).expand_as(actions)


policy = torch.compile(explore, mode="reduce-overhead")
rb = S.TensorReplayBuffer(NENV * COLLECT, 2 * DIM, (DIM,), dev, seed=1)
obs, rng = env.obs(), np.random.default_rng(0)
for step in range(COLLECT):
    if step < COLLECT // 4:
        actions = rng.uniform(-1, 1, (NENV, DIM))
    else:
        with torch.no_grad():
            actions = policy(torch.Tensor(obs).to(dev)).cpu().numpy().clip(-1, 1)
    next_obs, rewards, dones = env.step(actions)
    rb.add(obs, next_obs, actions, rewards, dones)
    obs = next_obs
batches = [rb.sample(BATCH) for _ in range(UPDATES)]


def make(actor_init):
    a = copy.deepcopy(actor_init)
    qf1, qf2 = td3.QNetwork(envs).to(dev), td3.QNetwork(envs).to(dev)
    n = dict(actor=a, qf1=qf1, qf2=qf2, target_actor=copy.deepcopy(a), qf1_target=copy.deepcopy(qf1), qf2_target=copy.deepcopy(qf2))
    n["q_optimizer"] = optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=args.learning_rate)
    n["actor_optimizer"] = optim.Adam(list(a.parameters()), lr=args.learning_rate)
    return n


def critic_update(n, data):
    with torch.no_grad():
        clipped_noise = (torch.randn_like(data.actions, device=dev) * args.policy_noise).clamp(
            -args.noise_clip, args.noise_clip
        ) * n["target_actor"].action_scale
        next_state_actions = (n["target_actor"](data.next_observations) + clipped_noise).clamp(-1.0, 1.0)
        qf1_next_target = n["qf1_target"](data.next_observations, next_state_actions)
        qf2_next_target = n["qf2_target"](data.next_observations, next_state_actions)
        min_qf_next_target = torch.min(qf1_next_target, qf2_next_target)
        next_q_value = data.rewards.flatten() + (1 - data.dones.flatten()) * args.gamma * (min_qf_next_target).view(-1)
    qf1_a_values = n["qf1"](data.observations, data.actions).view(-1)
    qf2_a_values = n["qf2"](data.observations, data.actions).view(-1)
    qf_loss = F.mse_loss(qf1_a_values, next_q_value) + F.mse_loss(qf2_a_values, next_q_value)
    n["q_optimizer"].zero_grad()
    qf_loss.backward()
    n["q_optimizer"].step()
    return qf_loss.detach()


def actor_update(n, data):
    actor_loss = -n["qf1"](data.observations, n["actor"](data.observations)).mean()
    n["actor_optimizer"].zero_grad()
    actor_loss.backward()
    n["actor_optimizer"].step()
    for a, b in (("actor", "target_actor"), ("qf1", "qf1_target"), ("qf2", "qf2_target")):
        for param, target_param in zip(n[a].parameters(), n[b].parameters()):
            target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
    return actor_loss.detach()


runs = {}
torch.manual_seed(5)
nets = {"compiled": make(actor), "eager": None}
nets["eager"] = copy.deepcopy(nets["compiled"])
for name, (cu, au) in (
    ("compiled", (torch.compile(critic_update), torch.compile(actor_update))),
    ("eager", (critic_update, actor_update)),
):
    torch.manual_seed(7)
    n, ql, al = nets[name], [], []
    for i, data in enumerate(batches):
        ql.append(cu(n, data).item())
        if i % args.policy_frequency == 0:
            al.append(au(n, data).item())
    runs[name] = (ql, al)

e_q = max(abs(a - b) / max(abs(b), 1e-3) for a, b in zip(runs["compiled"][0], runs["eager"][0]))
e_a = max(abs(a - b) / max(abs(b), 1e-3) for a, b in zip(runs["compiled"][1], runs["eager"][1]))
e_par = max(
    S.rel_err(p, q)
    for k in ("actor", "qf1", "qf2", "target_actor")
    for p, q in zip(nets["compiled"][k].parameters(), nets["eager"][k].parameters())
)
with torch.no_grad():
    o = torch.Tensor(obs).to(dev)
    noise = policy(o).clone() - actor(o)  # the script's noise: one draw of N(0, 0.1 * scale) per action dim
e_pol = S.rel_err(noise, noise[:1].expand_as(noise))
assert noise.abs().max().item() < 1.0, noise
ql = runs["compiled"][0]
print(
    f"CleanRL TD3 on ToyReacher ({NENV} envs, {DIM}-d): {COLLECT} collection steps with the reduce-overhead policy, "
    f"{UPDATES} compiled critic updates (batch {BATCH}), q loss {ql[0]:.4f} -> {ql[-1]:.4f}; compiled vs eager: "
    f"q losses {e_q:.1e}, actor losses {e_a:.1e}, params {e_par:.1e}, policy {e_pol:.1e}"
)
assert e_q < 5e-2 and e_a < 5e-2 and e_par < 5e-2 and e_pol < 5e-2, (e_q, e_a, e_par, e_pol)
S.sync()
print("cleanrl_td3_compile ok")
