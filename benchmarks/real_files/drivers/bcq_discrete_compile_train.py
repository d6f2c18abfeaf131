"""Corpus driver (kx's code): Scott Fujimoto's discrete BCQ (sfujim/BCQ, discrete_BCQ/
discrete_BCQ.py: FC_Q, a Q head and an imitation head returning (q, log_softmax(i), i);
discrete_BCQ.train(): StandardBuffer.sample, the next action as the argmax of Q over actions
whose imitation probability relative to the most likely one exceeds BCQ_threshold (masked with
-1e8), the target from Q_target.gather, smooth L1 Q loss + NLL imitation loss + 1e-2 logit
penalty, Adam, the iteration counter and a Polyak target update picked at construction
(maybe_update_target bound to polyak_target_update); select_action's thresholded greedy action;
discrete_BCQ/utils.py: StandardBuffer) with main.py's regular_parameters (Adam lr 3e-4, batch 64,
Polyak tau 0.005 every iteration, threshold 0.3). Q and Q_target are compiled in place
(nn.Module.compile), so the file's own train() runs the compiled graphs forward and backward.
The data are kx's: discrete ToyReacher rollouts of a noisy greedy behaviour policy in
StandardBuffer.add's layout. cv2 / gym (imported by utils.py for Atari) are stand-ins. A
deep-copied eager agent trains on the same batches (numpy seed reset). Checked: Q-network
parameters close to eager and the greedy select_action choices equal on probe states."""

import copy

import _corpus21_support as S

S.install_bcq_discrete_standins()
import discrete_BCQ  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import utils  # noqa: E402

torch.manual_seed(0)
dev = S.device()
DIM = 3
NACT = 2 * DIM + 1
N, ITERS, BATCH = S.pick((50_000, 1500, 64), (200, 6, 16))

env = S.ToyReacher(8, DIM, horizon=50, seed=0)
rng = np.random.default_rng(1)
buf = utils.StandardBuffer(2 * DIM, BATCH, N, dev)
obs = env.obs()
while buf.crt_size < N:
    delta = obs[:, DIM:] - obs[:, :DIM]
    axis = np.abs(delta).argmax(1)
    greedy = 1 + 2 * axis + (delta[np.arange(8), axis] > 0)
    act = np.where(rng.random(8) < 0.2, rng.integers(0, NACT, 8), greedy)
    nxt, r, d = env.step(S.reacher_move(act, DIM))
    for i in range(8):
        if buf.crt_size < N:
            buf.add(obs[i], act[i], nxt[i], r[i], float(d[i]), d[i], 0)
    obs = nxt

kw = dict(
    BCQ_threshold=0.3,
    discount=0.99,
    optimizer="Adam",
    optimizer_parameters={"lr": 3e-4},
    polyak_target_update=True,
    target_update_frequency=1,
    tau=0.005,
    initial_eps=0.1,
    end_eps=0.1,
    eps_decay_period=1,
    eval_eps=0,
)
agent = discrete_BCQ.discrete_BCQ(False, NACT, 2 * DIM, dev, **kw)
twin = copy.deepcopy(agent)
agent.Q.compile()
agent.Q_target.compile()
for a in (agent, twin):
    np.random.seed(0)
    for _ in range(ITERS):
        a.train(buf)
e_q = S.params_rel_err(agent.Q, twin.Q)
e_t = S.params_rel_err(agent.Q_target, twin.Q_target)
probe = env.obs()
same = np.mean([agent.select_action(p) == twin.select_action(p) for p in probe])
print(
    f"discrete BCQ (FC_Q, {NACT} actions) on {N} toy transitions: {ITERS} compiled train() calls (batch {BATCH}); "
    f"compiled vs eager: Q params {e_q:.1e}, target {e_t:.1e}, select_action agree {same:.2f}"
)
assert max(e_q, e_t) < 5e-2 and same >= 0.75, (e_q, e_t, same)
S.sync()
print("bcq_discrete_compile_train ok")
