"""Corpus driver (kx's code): CleanRL's SAC (vwxyzjn/cleanrl, cleanrl/sac_continuous_action.py:
SoftQNetwork and the squashed-Gaussian Actor (log_std through tanh into [LOG_STD_MIN,
LOG_STD_MAX], Normal.rsample, tanh squashing with the log-det correction, action_scale /
action_bias buffers) and the script's __main__ loop, transcribed here: actions from
actor.get_action, a soft critic update on twin Q networks against target networks with the
entropy bonus, policy_frequency actor updates per delayed step, automatic entropy tuning
(log_alpha with its own Adam, alpha read back with .item() every update) and Polyak target
updates every target_network_frequency steps, hyperparameters from the script's Args). The
sampling policy, the critic update and the actor + alpha update are each torch.compile'd
(zero_grad, backward, Adam steps inside: graph breaks at backward; the alpha read is a host
sync); gymnasium / tyro / tensorboard / cleanrl_utils are stand-ins, the environment is kx's
numpy ToyReacher and the replay buffer a tensor stand-in. Inductor's random ops fall back to
eager (fallback_random) so a deep-copied eager twin run on the same batches from the same seed
draws the same rsample noise. Checked: per-update critic / actor / alpha losses and the final
parameters and log_alpha close between the compiled run and the twin."""

import copy

import _corpus20_support as S

S.install_cleanrl_standins()
import numpy as np  # noqa: E402
import sac_continuous_action as sac  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = S.device()
NENV, DIM, COLLECT, UPDATES = S.pick((16, 8, 300, 60), (2, 2, 20, 6))
args = sac.Args()
BATCH = S.pick(args.batch_size, 16)

envs = S.box_envs(2 * DIM, DIM, n_envs=NENV)
env = S.ToyReacher(NENV, DIM, horizon=100, seed=0)
actor0 = sac.Actor(envs).to(dev)


def act(obs):
    actions, _, _ = actor0.get_action(obs)
    return actions


policy = torch.compile(act)
rb = S.TensorReplayBuffer(NENV * COLLECT, 2 * DIM, (DIM,), dev, seed=1)
obs, rng = env.obs(), np.random.default_rng(0)
for step in range(COLLECT):
    if step < COLLECT // 4:
        actions = rng.uniform(-1, 1, (NENV, DIM))
    else:
        actions = policy(torch.Tensor(obs).to(dev)).detach().cpu().numpy()
    next_obs, rewards, dones = env.step(actions)
    rb.add(obs, next_obs, actions, rewards, dones)
    obs = next_obs
batches = [rb.sample(BATCH) for _ in range(UPDATES)]


def make():
    a = copy.deepcopy(actor0)
    qf1, qf2 = sac.SoftQNetwork(envs).to(dev), sac.SoftQNetwork(envs).to(dev)
    n = dict(actor=a, qf1=qf1, qf2=qf2, qf1_target=copy.deepcopy(qf1), qf2_target=copy.deepcopy(qf2))
    n["q_optimizer"] = optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=args.q_lr)
    n["actor_optimizer"] = optim.Adam(list(a.parameters()), lr=args.policy_lr)
    n["target_entropy"] = -torch.prod(torch.Tensor((DIM,)).to(dev)).item()
    n["log_alpha"] = torch.zeros(1, requires_grad=True, device=dev)
    n["a_optimizer"] = optim.Adam([n["log_alpha"]], lr=args.q_lr)
    return n


def critic_update(n, data, alpha):
    with torch.no_grad():
        next_state_actions, next_state_log_pi, _ = n["actor"].get_action(data.next_observations)
        qf1_next_target = n["qf1_target"](data.next_observations, next_state_actions)
        qf2_next_target = n["qf2_target"](data.next_observations, next_state_actions)
        min_qf_next_target = torch.min(qf1_next_target, qf2_next_target) - alpha * next_state_log_pi
        next_q_value = data.rewards.flatten() + (1 - data.dones.flatten()) * args.gamma * (min_qf_next_target).view(-1)
    qf1_a_values = n["qf1"](data.observations, data.actions).view(-1)
    qf2_a_values = n["qf2"](data.observations, data.actions).view(-1)
    qf_loss = F.mse_loss(qf1_a_values, next_q_value) + F.mse_loss(qf2_a_values, next_q_value)
    n["q_optimizer"].zero_grad()
    qf_loss.backward()
    n["q_optimizer"].step()
    return qf_loss.detach()


def actor_update(n, data, alpha):
    pi, log_pi, _ = n["actor"].get_action(data.observations)
    min_qf_pi = torch.min(n["qf1"](data.observations, pi), n["qf2"](data.observations, pi))
    actor_loss = ((alpha * log_pi) - min_qf_pi).mean()
    n["actor_optimizer"].zero_grad()
    actor_loss.backward()
    n["actor_optimizer"].step()
    with torch.no_grad():
        _, log_pi, _ = n["actor"].get_action(data.observations)
    alpha_loss = (-n["log_alpha"].exp() * (log_pi + n["target_entropy"])).mean()
    n["a_optimizer"].zero_grad()
    alpha_loss.backward()
    n["a_optimizer"].step()
    return actor_loss.detach(), alpha_loss.detach()


def target_update(n):
    for a, b in (("qf1", "qf1_target"), ("qf2", "qf2_target")):
        for param, target_param in zip(n[a].parameters(), n[b].parameters()):
            target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)


nets = {"compiled": make()}
nets["eager"] = copy.deepcopy(nets["compiled"])
nets["eager"]["q_optimizer"] = optim.Adam(list(nets["eager"]["qf1"].parameters()) + list(nets["eager"]["qf2"].parameters()), lr=args.q_lr)
nets["eager"]["actor_optimizer"] = optim.Adam(list(nets["eager"]["actor"].parameters()), lr=args.policy_lr)
nets["eager"]["a_optimizer"] = optim.Adam([nets["eager"]["log_alpha"]], lr=args.q_lr)
runs = {}
for name, (cu, au) in (
    ("compiled", (torch.compile(critic_update), torch.compile(actor_update))),
    ("eager", (critic_update, actor_update)),
):
    torch.manual_seed(7)
    n, ql, al = nets[name], [], []
    alpha = n["log_alpha"].exp().item()
    for i, data in enumerate(batches):
        ql.append(cu(n, data, alpha).item())
        if i % args.policy_frequency == 0:
            for _ in range(args.policy_frequency):
                la, lal = au(n, data, alpha)
                alpha = n["log_alpha"].exp().item()
                al += [la.item(), lal.item()]
        if i % args.target_network_frequency == 0:
            target_update(n)
    runs[name] = (ql, al, alpha)


def rel(xs, ys):
    return max(abs(a - b) / max(abs(b), 1e-2) for a, b in zip(xs, ys))


e_q, e_a = rel(runs["compiled"][0], runs["eager"][0]), rel(runs["compiled"][1], runs["eager"][1])
e_par = max(
    S.rel_err(p, q)
    for k in ("actor", "qf1", "qf2", "qf1_target")
    for p, q in zip(nets["compiled"][k].parameters(), nets["eager"][k].parameters())
)
e_alpha = abs(runs["compiled"][2] - runs["eager"][2]) / runs["eager"][2]
ql = runs["compiled"][0]
print(
    f"CleanRL SAC on ToyReacher ({NENV} envs, {DIM}-d): {COLLECT} steps with the compiled sampling policy, {UPDATES} compiled "
    f"critic updates (batch {BATCH}), q loss {ql[0]:.4f} -> {ql[-1]:.4f}, alpha {runs['compiled'][2]:.4f}; compiled vs eager: "
    f"q losses {e_q:.1e}, actor / alpha losses {e_a:.1e}, params {e_par:.1e}, alpha {e_alpha:.1e}"
)
assert e_q < 5e-2 and e_a < 5e-2 and e_par < 5e-2 and e_alpha < 5e-2, (e_q, e_a, e_par, e_alpha)
S.sync()
print("cleanrl_sac_compile ok")
