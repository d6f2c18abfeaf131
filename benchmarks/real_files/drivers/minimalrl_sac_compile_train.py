"""Corpus driver (kx's code): minimalRL's soft actor-critic (seungeunrho/minimalRL, sac.py:
PolicyNet with a tanh-squashed Normal rsample policy and a learned temperature log_alpha (its own
Adam), twin QNets with targets, calc_target under no_grad, train_net methods that each run
forward, backward and their optimizer step, and soft_update's .data.copy_ Polyak loop) run as
main() runs it on Pendulum, with kx's torch.compile around the update functions: calc_target,
both critics' and the policy's train_net and both critics' soft_update are compiled (each holds
backward / optimizer.step / data-dependent Python, so Dynamo splits them), the acting policy is
compiled too. Default device set to the GPU so the script's torch.tensor(...) batches land there;
a numpy pendulum (Pendulum-v1 dynamics) stands in for gym. Checked: after the compiled training,
one more critic step and soft update compiled vs an eager twin on the same batch and target, and
the policy / temperature updates finite and moving."""

import _corpus19_support as S
import numpy as np
import torch

S.install_gym_standin()
import minimalrl_sac as sac  # noqa: E402

torch.manual_seed(0)
np.random.seed(0)
sac.random.seed(0)
dev = "cuda"
torch.set_default_device(dev)
EPISODES, WARM, UPDATES = S.pick((8, 1000, 20), (3, 300, 3))

env = S.ToyPendulumV1(seed=0)
memory = sac.ReplayBuffer()
q1, q2, q1_target, q2_target = (sac.QNet(sac.lr_q) for _ in range(4))
pi = sac.PolicyNet(sac.lr_pi)
q1_target.load_state_dict(q1.state_dict())
q2_target.load_state_dict(q2.state_dict())
alpha0 = pi.log_alpha.item()

calc_target = torch.compile(sac.calc_target)
act = torch.compile(pi)
for net in (q1, q2, pi):
    net.train_net = torch.compile(net.train_net)
for net in (q1, q2):
    net.soft_update = torch.compile(net.soft_update)

score, n_updates = 0.0, 0
for n_epi in range(EPISODES):
    s, _ = env.reset()
    done, count = False, 0
    while count < 200 and not done:
        a, log_prob = act(torch.from_numpy(s).float().to(dev))
        s_prime, r, done, truncated, info = env.step([2.0 * a.item()])
        memory.put((s, a.item(), r / 10.0, s_prime, done))
        score += r
        s = s_prime
        count += 1
    if memory.size() > WARM:
        for i in range(UPDATES):
            mini_batch = memory.sample(sac.batch_size)
            td_target = calc_target(pi, q1_target, q2_target, mini_batch)
            q1.train_net(td_target, mini_batch)
            q2.train_net(td_target, mini_batch)
            pi.train_net(q1, q2, mini_batch)
            q1.soft_update(q1_target)
            q2.soft_update(q2_target)
            n_updates += 1

# one more critic step + soft update, compiled vs an eager twin on the same batch and target
mini_batch = memory.sample(sac.batch_size)
td_target = calc_target(pi, q1_target, q2_target, mini_batch)
twin, twin_target = sac.QNet(sac.lr_q), sac.QNet(sac.lr_q)
twin.load_state_dict(q1.state_dict())
twin.optimizer.load_state_dict(q1.optimizer.state_dict())
twin_target.load_state_dict(q1_target.state_dict())
q1.train_net(td_target, mini_batch)
q1.soft_update(q1_target)
twin.train_net(td_target, mini_batch)
twin.soft_update(twin_target)
errs = [S.rel_err(p, w) for p, w in zip(q1.parameters(), twin.parameters())]
errs += [S.rel_err(p, w) for p, w in zip(q1_target.parameters(), twin_target.parameters())]
alpha = pi.log_alpha.exp().item()
finite = all(torch.isfinite(p).all() for net in (pi, q1, q2) for p in net.parameters())
print(
    f"{EPISODES} episodes ({memory.size()} transitions), {n_updates} compiled SAC updates, "
    f"score {score / EPISODES:.1f}/episode, alpha {np.exp(alpha0):.4f} -> {alpha:.4f}; "
    f"last critic step + soft update compiled vs eager worst rel err {max(errs):.1e}"
)
assert n_updates == (EPISODES - (WARM // 200)) * UPDATES and finite and alpha != np.exp(alpha0), n_updates
assert max(errs) < 2e-2, max(errs)  # Adam divides by sqrt(v) + 1e-8: near-zero grads amplify rounding
torch.cuda.synchronize()
print("minimalrl_sac_compile_train ok")
