"""Corpus driver (kx's code): CleanRL's Atari PPO (vwxyzjn/cleanrl, cleanrl/ppo_atari.py: the
Agent (the Nature-DQN conv torso over 4 stacked 84x84 frames scaled by 1/255, orthogonal init
through layer_init, a Categorical policy head and a value head on the shared 512-d features)
and the script's __main__ loop, transcribed here: rollouts of num_steps x
num_envs with get_action_and_value under no_grad into preallocated storage, learning-rate
annealing, GAE computed backwards in a Python loop, then update_epochs passes over shuffled
minibatches with advantage normalisation, the clipped surrogate, the clipped value loss, the
entropy term, clip_grad_norm_ and Adam (eps 1e-5), approx-KL and clip fractions read back with
.item(); hyperparameters from the script's Args (8 envs x 128 steps, 4 epochs x 4
minibatches, clip 0.1, as in the file)). The
rollout policy and the minibatch update (losses, zero_grad, backward, clipping and the Adam
step: graph breaks at backward) are torch.compile'd; gymnasium / tyro / tensorboard are
stand-ins (and cleanrl_utils.atari_wrappers), the environment is a batch of kx's ToyAtari
(frames with a moving square, reward for the square's quadrant, auto-reset at episode end). Inductor's random ops fall back
to eager (fallback_random) so a deep-copied eager twin run from the same seeds samples the same
actions. Checked: rollout returns, per-minibatch losses and the final parameters (as one vector) close between
the compiled run and the twin."""

import copy

import _corpus20_support as S

S.install_cleanrl_standins()
import numpy as np  # noqa: E402
import ppo_atari as ppo  # noqa: E402
import torch  # noqa: E402
import torch._inductor.config as inductor_config  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.optim as optim  # noqa: E402

inductor_config.fallback_random = True
torch.manual_seed(0)
dev = S.device()
args = ppo.Args()
ITERS, NACT = S.pick(2, 2), 4
if S.small():
    args.num_envs, args.num_steps, args.num_minibatches, args.update_epochs = 2, 8, 2, 2
args.batch_size = args.num_envs * args.num_steps
args.minibatch_size = args.batch_size // args.num_minibatches
args.num_iterations = ITERS
envs = S.discrete_envs(4 * 84 * 84, NACT, args.num_envs)
envs.single_observation_space.shape = (4, 84, 84)
envs.single_action_space.shape = ()


class AtariBatch:
    """num_envs ToyAtari episodes stepped together, reset on done (a SyncVectorEnv stand-in)."""

    def __init__(self, n, seed):
        self.envs = [S.ToyAtari(NACT, 100, seed=seed + i) for i in range(n)]
        self.state = [e.reset() for e in self.envs]

    def obs(self):
        return np.stack([(s * 255).numpy() for s in self.state]).astype(np.float32)

    def step(self, actions):
        rew, done = np.zeros(len(self.envs), np.float32), np.zeros(len(self.envs), bool)
        for i, (e, a) in enumerate(zip(self.envs, actions)):
            s, rew[i], done[i] = e.step(int(a))
            self.state[i] = e.reset() if done[i] else s
        return self.obs(), rew, done
agent0 = ppo.Agent(envs).to(dev)


def run(agent, compiled):
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    def act(x):
        return agent.get_action_and_value(x)

    def update(mb_obs, mb_actions, mb_logprobs, mb_advantages, mb_returns, mb_values):
        _, newlogprob, entropy, newvalue = agent.get_action_and_value(mb_obs, mb_actions)
        logratio = newlogprob - mb_logprobs
        ratio = logratio.exp()
        with torch.no_grad():
            approx_kl = ((ratio - 1) - logratio).mean()
            clipfrac = ((ratio - 1.0).abs() > args.clip_coef).float().mean()
        if args.norm_adv:
            mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
        pg_loss1 = -mb_advantages * ratio
        pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
        pg_loss = torch.max(pg_loss1, pg_loss2).mean()
        newvalue = newvalue.view(-1)
        v_loss_unclipped = (newvalue - mb_returns) ** 2
        v_clipped = mb_values + torch.clamp(newvalue - mb_values, -args.clip_coef, args.clip_coef)
        v_loss = 0.5 * torch.max(v_loss_unclipped, (v_clipped - mb_returns) ** 2).mean()
        loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
        optimizer.step()
        return loss.detach(), approx_kl, clipfrac

    if compiled:
        act, update = torch.compile(act), torch.compile(update)
    torch.manual_seed(11)
    np.random.seed(11)
    env = AtariBatch(args.num_envs, seed=3)
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + envs.single_observation_space.shape).to(dev)
    actions = torch.zeros(shape + envs.single_action_space.shape).to(dev)
    logprobs, rewards, dones, values = (torch.zeros(shape).to(dev) for _ in range(4))
    next_obs, next_done = torch.Tensor(env.obs()).to(dev), torch.zeros(args.num_envs).to(dev)
    returns_seen, losses = [], []
    for iteration in range(1, args.num_iterations + 1):
        frac = 1.0 - (iteration - 1.0) / args.num_iterations
        optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        for step in range(0, args.num_steps):
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = act(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, next_done = env.step(action.cpu().numpy())
            rewards[step] = torch.tensor(reward).to(dev).view(-1)
            next_obs, next_done = torch.Tensor(next_obs).to(dev), torch.Tensor(next_done.astype(np.float32)).to(dev)
        returns_seen.append(rewards.sum(0).mean().item())
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(dev)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values
        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_logprobs, b_actions = logprobs.reshape(-1), actions.reshape((-1,) + envs.single_action_space.shape)
        b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                mb = torch.as_tensor(b_inds[start : start + args.minibatch_size], device=dev)
                loss, approx_kl, clipfrac = update(b_obs[mb], b_actions.long()[mb], b_logprobs[mb], b_advantages[mb], b_returns[mb], b_values[mb])
                clipfracs += [clipfrac.item()]
                losses.append(loss.item())
    return returns_seen, losses, approx_kl.item(), float(np.mean(clipfracs))


agent_e = copy.deepcopy(agent0)
rc, lc, kl, cf = run(agent0, True)
re_, le, _, _ = run(agent_e, False)
e_ret = max(abs(a - b) / abs(b) for a, b in zip(rc, re_))
e_loss = max(abs(a - b) / max(abs(b), 1e-2) for a, b in zip(lc, le))
# all parameters as one vector: the zero-initialised biases move by about lr per Adam step, so
# per-tensor relative errors of those tiny vectors say little (cuDNN convs may take TF32 on the GPU)
e_par = S.rel_err(
    torch.cat([p.detach().flatten() for p in agent0.parameters()]), torch.cat([q.detach().flatten() for q in agent_e.parameters()])
)
print(
    f"CleanRL PPO (Atari CNN) on ToyAtari, {args.num_envs} envs x {args.num_steps} steps x {ITERS} iterations, "
    f"{args.update_epochs} epochs x {args.num_minibatches} minibatches: mean return {rc[0]:.2f} -> {rc[-1]:.2f}, last approx_kl "
    f"{kl:.1e}, clipfrac {cf:.3f}; compiled vs eager: returns {e_ret:.1e}, losses {e_loss:.1e}, params {e_par:.1e}"
)
assert e_ret < 5e-2 and e_loss < 5e-2 and e_par < 5e-2, (e_ret, e_loss, e_par)
S.sync()
print("cleanrl_ppo_atari_compile ok")
