"""Corpus driver (kx's code): CleanRL's DDPG (vwxyzjn/cleanrl, cleanrl/ddpg_continuous_action.py:
the QNetwork (obs ++ action -> 256 -> 256 -> 1) and deterministic Actor (tanh output rescaled by
action_scale / action_bias buffers) and the script's __main__ loop, transcribed here: exploration
with the actor plus one Gaussian noise draw scaled by action_scale, a critic update against the
target actor / target critic, an actor update and Polyak target updates (param.data.copy_)
every policy_frequency steps, hyperparameters from the script's Args). The actor used for
acting is torch.compile(mode="max-autotune") (GEMM autotuning, CUDA graphs on the GPU) and one
whole training step (critic loss, backward, Adam, and on policy steps the actor loss, backward,
Adam and the target copies) is torch.compile'd with the policy-step flag as a Python bool (two
graphs sets; graph breaks at backward). gymnasium / tyro / tensorboard / cleanrl_utils are
stand-ins (the networks see a one-env vector env, as the script requires), the environment
is kx's numpy ToyReacher stepping NENV points and the replay buffer a tensor stand-in. A
deep-copied eager twin trains on the same batches (no randomness inside the step). Checked:
per-step critic / actor losses and final actor, critic and target parameters close between
compiled and eager, and the max-autotune actor close to the eager actor."""

import copy

import _corpus20_support as S

S.install_cleanrl_standins()
import ddpg_continuous_action as ddpg  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402

torch.manual_seed(0)
dev = S.device()
NENV, DIM, COLLECT, UPDATES = S.pick((16, 8, 300, 60), (2, 2, 20, 6))
args = ddpg.Args()
BATCH = S.pick(args.batch_size, 16)

envs = S.box_envs(2 * DIM, DIM, n_envs=1)  # the script asserts num_envs == 1 (its Actor reads the batched action_space)
env = S.ToyReacher(NENV, DIM, horizon=100, seed=0)
actor = ddpg.Actor(envs).to(dev)
policy = torch.compile(actor, mode="max-autotune")
rb = S.TensorReplayBuffer(NENV * COLLECT, 2 * DIM, (DIM,), dev, seed=1)
obs, rng = env.obs(), np.random.default_rng(0)
for step in range(COLLECT):
    if step < COLLECT // 4:
        actions = rng.uniform(-1, 1, (NENV, DIM))
    else:
        with torch.no_grad():
            actions = policy(torch.Tensor(obs).to(dev)).clone()
            actions += torch.normal(0, actor.action_scale * args.exploration_noise)
            actions = actions.cpu().numpy().clip(-1, 1)
    next_obs, rewards, dones = env.step(actions)
    rb.add(obs, next_obs, actions, rewards, dones)
    obs = next_obs
batches = [rb.sample(BATCH) for _ in range(UPDATES)]
with torch.no_grad():
    o = torch.Tensor(obs).to(dev)
    e_pol = S.rel_err(policy(o).clone(), actor(o))

qf0 = ddpg.QNetwork(envs).to(dev)


def make():
    a, qf1 = copy.deepcopy(actor), copy.deepcopy(qf0)
    n = dict(actor=a, qf1=qf1, target_actor=copy.deepcopy(a), qf1_target=copy.deepcopy(qf1))
    n["q_optimizer"] = optim.Adam(list(qf1.parameters()), lr=args.learning_rate)
    n["actor_optimizer"] = optim.Adam(list(a.parameters()), lr=args.learning_rate)
    return n


def train_step(n, data, policy_step: bool):
    with torch.no_grad():
        next_state_actions = n["target_actor"](data.next_observations)
        qf1_next_target = n["qf1_target"](data.next_observations, next_state_actions)
        next_q_value = data.rewards.flatten() + (1 - data.dones.flatten()) * args.gamma * (qf1_next_target).view(-1)
    qf1_a_values = n["qf1"](data.observations, data.actions).view(-1)
    qf1_loss = F.mse_loss(qf1_a_values, next_q_value)
    n["q_optimizer"].zero_grad()
    qf1_loss.backward()
    n["q_optimizer"].step()
    actor_loss = torch.zeros((), device=qf1_loss.device)
    if policy_step:
        actor_loss = -n["qf1"](data.observations, n["actor"](data.observations)).mean()
        n["actor_optimizer"].zero_grad()
        actor_loss.backward()
        n["actor_optimizer"].step()
        for a, b in (("actor", "target_actor"), ("qf1", "qf1_target")):
            for param, target_param in zip(n[a].parameters(), n[b].parameters()):
                target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
    return qf1_loss.detach(), actor_loss.detach()


runs, nets = {}, {}
for name, fn in (("compiled", torch.compile(train_step)), ("eager", train_step)):
    n, ql, al = make(), [], []
    for i, data in enumerate(batches):
        q, a = fn(n, data, i % args.policy_frequency == 0)
        ql.append(q.item())
        if i % args.policy_frequency == 0:
            al.append(a.item())
    runs[name], nets[name] = (ql, al), n

e_q = max(abs(a - b) / max(abs(b), 1e-3) for a, b in zip(runs["compiled"][0], runs["eager"][0]))
e_a = max(abs(a - b) / max(abs(b), 1e-3) for a, b in zip(runs["compiled"][1], runs["eager"][1]))
e_par = max(
    S.rel_err(p, q)
    for k in ("actor", "qf1", "target_actor", "qf1_target")
    for p, q in zip(nets["compiled"][k].parameters(), nets["eager"][k].parameters())
)
ql = runs["compiled"][0]
print(
    f"CleanRL DDPG on ToyReacher ({NENV} envs, {DIM}-d): {COLLECT} steps with the max-autotune actor, {UPDATES} compiled "
    f"train steps (batch {BATCH}), q loss {ql[0]:.4f} -> {ql[-1]:.4f}; compiled vs eager: q losses {e_q:.1e}, actor losses "
    f"{e_a:.1e}, params {e_par:.1e}, policy {e_pol:.1e}"
)
assert e_q < 5e-2 and e_a < 5e-2 and e_par < 5e-2 and e_pol < 5e-2, (e_q, e_a, e_par, e_pol)
S.sync()
print("cleanrl_ddpg_compile ok")
