"""Corpus driver (kx's code): Rainbow DQN (Kaixhin/Rainbow, agent.py: Agent.learn samples the
prioritised replay memory, evaluates the online net's log-probabilities (log=True), the double-Q
next-state argmax with the online net and the target net's distribution (after reset_noise),
the categorical projection of the n-step Bellman target onto the 51-atom support with
floor / ceil, the l == u fix-ups and two index_add_ scatters, the importance-weighted
cross-entropy backward, clip_grad_norm_ and Adam, then update_priorities from the loss on the
host; model.py: DQN with the "canonical" Nature conv torso (8x8 s4, 4x4 s2, 3x3 s1, 3136 features), dueling value / advantage streams of
NoisyLinear layers (factorised Gaussian noise buffers resampled in place), log_softmax /
softmax over atoms; memory.py: ReplayMemory on a numpy segment tree, uint8 frames, n-step
returns and blank-frame masking) run in main.py's loop on kx's ToyAtari (four stacked 84 x 84
frames, six actions, reward when the action names the bright square's quadrant). The online and
target nets are compiled in place (nn.Module.compile), so act (batch 1), every fourth step (main.py's replay frequency) learn's three forwards
(batch B) and the backward run compiled graphs. Checked: episode returns early vs late, and the
compiled online net against its eager forward in eval mode (noise off)."""

import _corpus22_support as S
import numpy as np
import torch
from agent import Agent  # noqa: E402
from memory import ReplayMemory  # noqa: E402

torch.manual_seed(0)
np.random.seed(0)
dev = torch.device(S.device())
ARCH = "canonical"
STEPS, LEARN_START, B, HID, EP_LEN = S.pick((2000, 800, 32, 512, 40), (40, 24, 2, 16, 8))

args = S.rainbow_args(ARCH, B, HID, dev)
env = S.RainbowEnvAdapter(6, EP_LEN, dev, seed=0)
agent = Agent(args, env)
agent.online_net.compile()
agent.target_net.compile()
mem = ReplayMemory(args, STEPS)
returns = S.run_rainbow(agent, env, mem, STEPS, LEARN_START, replay_frequency=4, target_update=200)

agent.eval()
probe = torch.stack([env.reset() for _ in range(8)])
with torch.no_grad():
    err = S.rel_err(agent.online_net(probe), agent.online_net.forward(probe))
q = len(returns) // 4 or 1
S.sync()
print(
    f"Rainbow ({ARCH}) on ToyAtari: {STEPS} steps, {len(returns)} episodes, learn from step {LEARN_START} (batch {B}); "
    f"mean return first quarter {np.mean(returns[:q]):.2f} -> last quarter {np.mean(returns[-q:]):.2f}; "
    f"compiled vs eager online net rel err {err:.1e}"
)
