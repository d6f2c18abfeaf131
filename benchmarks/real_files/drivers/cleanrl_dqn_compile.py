"""Corpus driver (kx's code): CleanRL's DQN (vwxyzjn/cleanrl, cleanrl/dqn.py: the QNetwork MLP
(obs -> 120 -> 84 -> n_actions) and the script's __main__ loop, transcribed here: epsilon-greedy
acting with the file's linear_schedule and argmax over Q values, a replay buffer, every
train_frequency steps the TD target from the target network's max (no_grad), the gathered Q of
the taken actions, MSE loss and Adam, and the target network's soft update through
param.data.copy_ every target_network_frequency steps; hyperparameters from the script's Args,
schedule lengths scaled down). The greedy acting function and the train step are
torch.compile'd; the target update is called from inside the compiled train step but wrapped in
torch.compiler.disable (it runs eagerly between graphs), and the train batches cycle through
four sizes (dynamic shapes). gymnasium / tyro / tensorboard / cleanrl_utils are stand-ins, the
environment is kx's numpy ToyReacher with discrete moves. A deep-copied eager twin trains on
the same batches. Checked: per-update losses and final parameters of the Q and target networks
close between compiled and eager, and the compiled greedy actions equal the eager ones."""

import copy
import random

import _corpus20_support as S

S.install_cleanrl_standins()
import dqn  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402

torch.manual_seed(0)
dev = S.device()
args = dqn.Args()
NENV, DIM, TOTAL = S.pick((8, 4, 4000), (2, 2, 80))
args.learning_starts, args.target_network_frequency, args.tau = TOTAL // 5, S.pick(100, 20), 0.5
args.train_frequency = S.pick(args.train_frequency, 5)
SIZES = S.pick([args.batch_size, 64, 256, 96], [8, 4, 12, 6])
NACT = 2 * DIM + 1
envs = S.discrete_envs(2 * DIM, NACT, NENV)
qnet0 = dqn.QNetwork(envs).to(dev)

act = torch.compile(lambda x: torch.argmax(qnet0(x), dim=1))
env = S.ToyReacher(NENV, DIM, horizon=50, seed=0)
rb = S.TensorReplayBuffer(NENV * TOTAL, 2 * DIM, (1,), dev, act_dtype=torch.long, seed=1)
random.seed(args.seed)
obs = env.obs()
for global_step in range(TOTAL):
    epsilon = dqn.linear_schedule(args.start_e, args.end_e, args.exploration_fraction * TOTAL, global_step)
    if random.random() < epsilon:
        actions = np.random.randint(0, NACT, NENV)
    else:
        actions = act(torch.Tensor(obs).to(dev)).cpu().numpy()
    next_obs, rewards, dones = env.step(S.reacher_move(actions, DIM))
    rb.add(obs, next_obs, actions[:, None], rewards, dones)
    obs = next_obs
steps = [s for s in range(args.learning_starts + 1, TOTAL) if s % args.train_frequency == 0]
batches = [rb.sample(SIZES[i % len(SIZES)]) for i in range(len(steps))]


def make_step(q_network, target_network, optimizer):
    @torch.compiler.disable
    def target_update():
        for target_network_param, q_network_param in zip(target_network.parameters(), q_network.parameters()):
            target_network_param.data.copy_(args.tau * q_network_param.data + (1.0 - args.tau) * target_network_param.data)

    def train_step(data, update_target: bool):
        with torch.no_grad():
            target_max, _ = target_network(data.next_observations).max(dim=1)
            td_target = data.rewards.flatten() + args.gamma * target_max * (1 - data.dones.flatten())
        old_val = q_network(data.observations).gather(1, data.actions).squeeze()
        loss = F.mse_loss(td_target, old_val)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if update_target:
            target_update()
        return loss.detach()

    return train_step


runs, nets = {}, {}
for name in ("compiled", "eager"):
    q_network, target_network = copy.deepcopy(qnet0), copy.deepcopy(qnet0)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate)
    step = make_step(q_network, target_network, optimizer)
    if name == "compiled":
        step = torch.compile(step)
    losses = []
    for global_step, data in zip(steps, batches):
        losses.append(step(data, global_step % args.target_network_frequency < args.train_frequency).item())
    runs[name], nets[name] = losses, (q_network, target_network)

e_loss = max(abs(a - b) / max(abs(b), 1e-3) for a, b in zip(runs["compiled"], runs["eager"]))
e_par = max(
    S.rel_err(p, q) for i in (0, 1) for p, q in zip(nets["compiled"][i].parameters(), nets["eager"][i].parameters())
)
probe = torch.Tensor(env.obs()).to(dev)
greedy = torch.compile(lambda x: torch.argmax(nets["compiled"][0](x), dim=1))
same = (greedy(probe) == torch.argmax(nets["eager"][0](probe), dim=1)).float().mean().item()
print(
    f"CleanRL DQN on discrete ToyReacher, {NENV} envs x {TOTAL} steps, {len(steps)} compiled train steps (batches {SIZES}): "
    f"loss {runs['compiled'][0]:.4f} -> {runs['compiled'][-1]:.4f}; compiled vs eager: losses {e_loss:.1e}, params {e_par:.1e}, "
    f"greedy actions agree {same:.2f}"
)
assert e_loss < 5e-2 and e_par < 5e-2 and same >= 0.75, (e_loss, e_par, same)
S.sync()
print("cleanrl_dqn_compile ok")
