"""Corpus driver (kx's code): CleanRL's C51 (vwxyzjn/cleanrl, cleanrl/c51.py: the distributional
QNetwork (an MLP to n_actions x n_atoms logits, a softmax over atoms per action, Q values as the
expectation over a registered linspace of atoms, argmax actions, the chosen action's pmf picked
with advanced indexing) and the script's __main__ loop, transcribed here: epsilon-greedy acting
with the file's linear_schedule, a replay buffer, every train_frequency steps the categorical
projection of the target distribution (Bellman-shifted atoms clamped to [v_min, v_max], floor /
ceil neighbours, a Python loop over the batch doing two index_add_ per row into the target pmf)
and the cross-entropy loss, Adam (eps 0.01 / batch), target network refreshed with
load_state_dict every target_network_frequency steps, hyperparameters from the script's Args,
schedule lengths scaled down). The acting function and the whole train step (projection loop
unrolled by Dynamo, loss, zero_grad, backward, Adam step) are torch.compile'd; gymnasium / tyro /
tensorboard / cleanrl_utils are stand-ins and the environment is kx's numpy ToyReacher with
discrete moves. A deep-copied eager twin trains on the same batches (no randomness inside the
step). Checked: per-update losses and final parameters close between compiled and eager, and
the compiled greedy actions equal the eager ones."""

import copy
import random

import _corpus20_support as S

S.install_cleanrl_standins()
import c51  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.optim as optim  # noqa: E402

torch.manual_seed(0)
dev = S.device()
args = c51.Args()
NENV, DIM, TOTAL = S.pick((8, 4, 3000), (2, 2, 60))
args.learning_starts, args.target_network_frequency, args.exploration_fraction = TOTAL // 5, TOTAL // 6, 0.5
args.train_frequency = S.pick(args.train_frequency, 5)
args.batch_size = S.pick(args.batch_size, 8)
NACT = 2 * DIM + 1
envs = S.discrete_envs(2 * DIM, NACT, NENV)
qnet0 = c51.QNetwork(envs, n_atoms=args.n_atoms, v_min=args.v_min, v_max=args.v_max).to(dev)

# collect one replay buffer with the compiled acting function (epsilon-greedy, file's schedule)
act = torch.compile(lambda x: qnet0.get_action(x)[0])
env = S.ToyReacher(NENV, DIM, horizon=50, seed=0)
rb = S.TensorReplayBuffer(NENV * TOTAL, 2 * DIM, (), dev, act_dtype=torch.long, seed=1)
random.seed(args.seed)
obs = env.obs()
for global_step in range(TOTAL):
    epsilon = c51.linear_schedule(args.start_e, args.end_e, args.exploration_fraction * TOTAL, global_step)
    if random.random() < epsilon:
        actions = np.random.randint(0, NACT, NENV)
    else:
        actions = act(torch.Tensor(obs).to(dev)).cpu().numpy()
    next_obs, rewards, dones = env.step(S.reacher_move(actions, DIM))
    rb.add(obs, next_obs, actions, 10 * rewards, dones)
    obs = next_obs
steps = [s for s in range(args.learning_starts + 1, TOTAL) if s % args.train_frequency == 0]
batches = [rb.sample(args.batch_size) for _ in steps]


def make_step(q_network, target_network, optimizer):
    def train_step(data):
        with torch.no_grad():
            _, next_pmfs = target_network.get_action(data.next_observations)
            next_atoms = data.rewards + args.gamma * target_network.atoms * (1 - data.dones)
            delta_z = target_network.atoms[1] - target_network.atoms[0]
            tz = next_atoms.clamp(args.v_min, args.v_max)
            b = (tz - args.v_min) / delta_z
            l = b.floor().clamp(0, args.n_atoms - 1)  # noqa: E741
            u = b.ceil().clamp(0, args.n_atoms - 1)
            d_m_l = (u + (l == u).float() - b) * next_pmfs
            d_m_u = (b - l) * next_pmfs
            target_pmfs = torch.zeros_like(next_pmfs)
            for i in range(target_pmfs.size(0)):
                target_pmfs[i].index_add_(0, l[i].long(), d_m_l[i])
                target_pmfs[i].index_add_(0, u[i].long(), d_m_u[i])
        _, old_pmfs = q_network.get_action(data.observations, data.actions.flatten())
        loss = (-(target_pmfs * old_pmfs.clamp(min=1e-5, max=1 - 1e-5).log()).sum(-1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.detach()

    return train_step


runs, nets = {}, {}
for name in ("compiled", "eager"):
    q_network = copy.deepcopy(qnet0)
    target_network = copy.deepcopy(qnet0)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate, eps=0.01 / args.batch_size)
    step = make_step(q_network, target_network, optimizer)
    if name == "compiled":
        step = torch.compile(step)
    losses = []
    for global_step, data in zip(steps, batches):
        losses.append(step(data).item())
        if global_step % args.target_network_frequency < args.train_frequency:
            target_network.load_state_dict(q_network.state_dict())
    runs[name], nets[name] = losses, q_network

e_loss = max(abs(a - b) / abs(b) for a, b in zip(runs["compiled"], runs["eager"]))
e_par = max(S.rel_err(p, q) for p, q in zip(nets["compiled"].parameters(), nets["eager"].parameters()))
probe = torch.Tensor(env.obs()).to(dev)
greedy = torch.compile(lambda x: nets["compiled"].get_action(x)[0])
same = (greedy(probe) == nets["eager"].get_action(probe)[0]).float().mean().item()
print(
    f"CleanRL C51 ({args.n_atoms} atoms) on discrete ToyReacher, {NENV} envs x {TOTAL} steps, {len(steps)} compiled train steps "
    f"(batch {args.batch_size}): loss {runs['compiled'][0]:.4f} -> {runs['compiled'][-1]:.4f}; compiled vs eager: losses "
    f"{e_loss:.1e}, params {e_par:.1e}, greedy actions agree {same:.2f}"
)
assert e_loss < 5e-2 and e_par < 5e-2 and same >= 0.75, (e_loss, e_par, same)
S.sync()
print("cleanrl_c51_compile ok")
