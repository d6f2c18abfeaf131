"""Import helpers, stand-ins, data makers and shared loops for fresh corpus 22's drivers (kx's
code, no upstream code).

The import helpers `device()` / `sync()` / `small()` / `pick()` / `rel_err()` / `load_path()` /
`stub_module()` and the numpy environments (ToyReacher, ToyAtari) are the earlier corpora's
(re-exported from `_corpus21_support` / `_corpus20_support`, one copy). Each stand-in here is used
whether or not the real package is installed, so a driver runs the same on any machine (the GPU
machine has torch, triton and numpy only). Upstream sources are found on sys.path (the manifest's
"pythonpath" puts the `.realfiles/...` folders there). `small()` is true under KX_CORPUS_SMALL=1
(toy sizes for a CPU check); by default the drivers run their real sizes on "cuda" (`device()`;
KX_CORPUS_DEVICE overrides it).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from _corpus20_support import ToyAtari, ToyReacher, unavailable  # noqa: F401
from _corpus21_support import (  # noqa: F401
    bare_package,
    device,
    find_on_path,
    load_path,
    params_rel_err,
    pick,
    rel_err,
    small,
    stub_module,
    sync,
)

# ---------------------------------------------------------------------------------------------
# dvmazur/mixtral-offloading: HQQ stand-in and an HQQ-style (axis 0) quantiser
# ---------------------------------------------------------------------------------------------


def install_hqq_standin() -> None:
    """mixtral-offloading's src/packing.py imports hqq.core.quantize.Quantizer and
    hqq.core.bitpack.BitPack at the top and, at import, registers its own packers in
    Quantizer.pack / Quantizer.unpack (dicts). The stand-in Quantizer has those two dicts and
    nothing else; BitPack's unpackers (used only for tensors hqq packed itself) raise."""

    class Quantizer:
        pack: dict = {}
        unpack: dict = {}
        dequantize = staticmethod(unavailable("hqq Quantizer.dequantize"))

    names = ("unpack_4bit_u8", "unpack_2bit_u8", "unpack_3bit_32")
    BitPack = SimpleNamespace(**{n: unavailable(f"hqq BitPack.{n}") for n in names})
    stub_module("hqq")
    stub_module("hqq.core")
    stub_module("hqq.core.quantize", Quantizer=Quantizer)
    stub_module("hqq.core.bitpack", BitPack=BitPack)


def hqq_axis0_quantize(w, nbits: int, group_size: int):
    """Round-to-nearest affine quantisation in HQQ's axis-0 layout, as mixtral-offloading's
    HQQLinearTritonSavable holds a (N, K) weight (kx's code): W.reshape(group_size, -1) is
    quantised column by column (min / max of each column), so with G = N // group_size the scale
    and zero of W[n, k] sit at [n % G, k] of (G, K) tensors. Returns (q (N, K) uint8, scale (G, K)
    fp16 step size, zero (G, K) fp16, dequantised (N, K) fp32) with dequant = (q - zero) * scale,
    the formula the Triton kernels apply."""
    import torch

    n, k = w.shape
    maxq = 2**nbits - 1
    wg = w.float().reshape(group_size, -1)
    lo, hi = wg.min(0, keepdim=True).values, wg.max(0, keepdim=True).values
    scale = ((hi - lo) / maxq).clamp_min(1e-5).half().float()
    zero = (-lo / scale).half().float()
    q = torch.round(wg / scale + zero).clamp(0, maxq)
    deq = ((q - zero) * scale).reshape(n, k)
    g = n // group_size
    return q.reshape(n, k).to(torch.uint8), scale.reshape(g, k).half(), zero.reshape(g, k).half(), deq


# ---------------------------------------------------------------------------------------------
# alexdremov/kernels: attention references in fp32 (the repository's references call .cuda())
# ---------------------------------------------------------------------------------------------


def masked_attention_ref(q, k, v, mask, scale):
    """fp32 softmax(q k^T * scale + mask) v with rows that see nothing set to zero (kx's code);
    mask (.., T, T) bool, True = attend."""
    import torch

    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    s = s.masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return p @ v.float()


def streaming_mask(t: int, context: int, back: int, lens, dev):
    """The chunked mask streaming_attention documents (kx's code): time in blocks of `context`;
    a query sees its own block and `back` blocks before it; with lens, keys and queries past a
    sequence's length are masked. (B or 1, 1, T, T) bool."""
    import torch

    blk = torch.arange(t, device=dev) // context
    d = blk[:, None] - blk[None, :]
    m = ((d >= 0) & (d <= back))[None, None]
    if lens is not None:
        valid = torch.arange(t, device=dev)[None, :] < lens[:, None].to(dev)
        m = m & valid[:, None, :, None] & valid[:, None, None, :]
    return m


def padding_mask(t: int, lens, dev):
    """Key and query padding mask for self_attention with lens (kx's code): (B, 1, T, T) bool."""
    import torch

    valid = torch.arange(t, device=dev)[None, :] < lens[:, None].to(dev)
    return valid[:, None, :, None] & valid[:, None, None, :]


# ---------------------------------------------------------------------------------------------
# pranz24/pytorch-soft-actor-critic: args, action space and the online loop of main.py
# ---------------------------------------------------------------------------------------------


def sac_args(policy: str, hidden: int, automatic_entropy_tuning: bool, lr: float = 3e-4):
    """main.py's argparse defaults as a namespace (gamma 0.99, tau 0.005, alpha 0.2, target
    update every step), `cuda` from device()."""
    return SimpleNamespace(
        gamma=0.99,
        tau=0.005,
        alpha=0.2,
        policy=policy,
        target_update_interval=1,
        automatic_entropy_tuning=automatic_entropy_tuning,
        cuda=device() == "cuda",
        hidden_size=hidden,
        lr=lr,
    )


def box_space(dim: int, low: float = -1.0, high: float = 1.0):
    """The attributes of a gym Box that sac.py / model.py read: shape, high, low (numpy)."""
    return SimpleNamespace(
        shape=(dim,), low=np.full(dim, low, np.float32), high=np.full(dim, high, np.float32)
    )


def run_sac(agent, memory, env_dim: int, steps: int, start_steps: int, batch_sizes, seed: int = 0):
    """main.py's loop on kx's ToyReacher (one env): random actions for start_steps, then
    agent.select_action; memory.push(state, action, reward, next_state, mask) with mask = 1 - done
    (0 only when the goal is reached, never at the time limit, as main.py does), and after
    start_steps one agent.update_parameters per step with the batch size cycling through
    batch_sizes. Returns (mean reward of the last quarter of steps, last losses, updates)."""
    env = ToyReacher(n_envs=1, dim=env_dim, horizon=100, seed=seed)
    rng = np.random.default_rng(seed + 7)
    state, rewards, updates, losses = env.obs()[0], [], 0, None
    for t in range(steps):
        if t < start_steps:
            action = rng.uniform(-1, 1, env_dim).astype(np.float32)
        else:
            action = agent.select_action(state)
        if len(memory) > max(batch_sizes) and t >= start_steps:
            losses = agent.update_parameters(memory, batch_sizes[updates % len(batch_sizes)], updates)
            updates += 1
        nxt, r, done = env.step(action[None])
        term = -float(r[0]) < 0.05  # reached the goal (a time-limit reset is no termination)
        memory.push(state, action, float(r[0]), nxt[0], float(not term))
        rewards.append(float(r[0]))
        state = nxt[0]
    return float(np.mean(rewards[-max(1, steps // 4) :])), losses, updates


# ---------------------------------------------------------------------------------------------
# Kaixhin/Rainbow: main.py's defaults as a namespace
# ---------------------------------------------------------------------------------------------


def rainbow_args(architecture: str, batch_size: int, hidden: int, dev):
    """Rainbow main.py's argparse defaults that agent.py / model.py / memory.py read (atoms 51 on
    [-10, 10], 3-step returns, discount 0.99, noisy std 0.1, Adam lr 6.25e-5 eps 1.5e-4, norm
    clip 10, priority exponent 0.5, weight 0.4, history 4)."""
    return SimpleNamespace(
        atoms=51,
        V_min=-10.0,
        V_max=10.0,
        device=dev,
        batch_size=batch_size,
        multi_step=3,
        discount=0.99,
        norm_clip=10.0,
        model=None,
        architecture=architecture,
        history_length=4,
        hidden_size=hidden,
        noisy_std=0.1,
        learning_rate=6.25e-5,
        adam_eps=1.5e-4,
        priority_weight=0.4,
        priority_exponent=0.5,
    )


class RainbowEnvAdapter:
    """kx's ToyAtari behind the interface Rainbow's agent / main.py use: action_space() -> int,
    reset() -> (4, 84, 84) float tensor on the device, step(a) -> (state, reward, done)."""

    def __init__(self, n_actions: int, max_len: int, dev, seed: int = 0):
        self.env, self.n, self.dev = ToyAtari(n_actions, max_len, seed), n_actions, dev

    def action_space(self):
        return self.n

    def reset(self):
        return self.env.reset().to(self.dev)

    def step(self, a):
        s, r, d = self.env.step(a)
        return s.to(self.dev), r, d


# ---------------------------------------------------------------------------------------------
# data makers (kx's code)
# ---------------------------------------------------------------------------------------------


def toy_cifar(n: int, side: int = 32, n_class: int = 10, seed: int = 0):
    """A CIFAR-shaped toy classification set: each class a fixed random colour and a fixed
    oriented sinusoidal stripe pattern, plus per-image random brightness, shift and 0.3 noise;
    float32 (n, 3, side, side) normalised per channel, int64 labels."""
    import torch

    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, n_class, (n,), generator=g)
    colors = torch.rand(n_class, 3, 1, 1, generator=g)
    ang = torch.rand(n_class, generator=g) * math.pi
    freq = 0.2 + 0.5 * torch.rand(n_class, generator=g)
    yy, xx = torch.meshgrid(torch.arange(side).float(), torch.arange(side).float(), indexing="ij")
    shift = torch.rand(n, 1, 1, generator=g) * 2 * math.pi
    proj = torch.cos(ang[labels])[:, None, None] * xx + torch.sin(ang[labels])[:, None, None] * yy
    stripes = torch.sin(freq[labels][:, None, None] * proj + shift)
    x = colors[labels] * (1 + 0.5 * stripes[:, None]) * (0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=g))
    x = x + 0.3 * torch.randn(n, 3, side, side, generator=g)
    x = (x - x.mean((0, 2, 3), keepdim=True)) / x.std((0, 2, 3), keepdim=True)
    return x.float(), labels


def toy_blobs(n: int, side: int = 32, seed: int = 0):
    """Images in [-1, 1] for the DDPM drivers: one or two soft coloured discs on a dark
    gradient background; float32 (n, 3, side, side)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.linspace(0, 1, side), torch.linspace(0, 1, side), indexing="ij")
    img = 0.2 * yy.expand(n, 3, side, side).clone()
    for _ in range(2):
        cy, cx = torch.rand(n, 1, 1, generator=g), torch.rand(n, 1, 1, generator=g)
        r = 0.1 + 0.15 * torch.rand(n, 1, 1, generator=g)
        disc = torch.sigmoid((r**2 - (yy - cy) ** 2 - (xx - cx) ** 2) * 200)
        col = torch.rand(n, 3, 1, 1, generator=g)
        img = img * (1 - disc[:, None]) + col * disc[:, None]
    return (img * 2 - 1).clamp(-1, 1).float()


def markov_tokens(n_tokens: int, vocab: int, seed: int = 0):
    """A token stream from a sparse random first-order Markov chain (each token has 4 likely
    successors); int64 numpy (n_tokens,). Its entropy floor keeps a language model's loss
    meaningful at any size."""
    rng = np.random.default_rng(seed)
    succ = rng.integers(0, vocab, (vocab, 4))
    probs = np.array([0.55, 0.25, 0.12, 0.08])
    out = np.empty(n_tokens, np.int64)
    t = 0
    choice = rng.choice(4, size=n_tokens, p=probs)
    noise = rng.random(n_tokens) < 0.05
    rand_tok = rng.integers(0, vocab, n_tokens)
    for i in range(n_tokens):
        t = rand_tok[i] if noise[i] else succ[t, choice[i]]
        out[i] = t
    return out


def lm_batch(data, batch: int, block: int, rng, dev):
    """nanoGPT-style get_batch: random windows x and shifted targets y from a numpy stream."""
    import torch

    ix = rng.integers(0, len(data) - block - 1, batch)
    x = torch.from_numpy(np.stack([data[i : i + block] for i in ix])).to(dev)
    y = torch.from_numpy(np.stack([data[i + 1 : i + 1 + block] for i in ix])).to(dev)
    return x, y


def run_rainbow(
    agent, env, mem, steps: int, learn_start: int, replay_frequency: int = 1, target_update: int = 200
):
    """Rainbow main.py's training loop (kx's code, its order of calls): reset noise every
    replay_frequency steps, act, step, clip the reward to [-1, 1], mem.append, anneal
    mem.priority_weight to 1 after learn_start, learn every replay_frequency steps and copy the
    target net every target_update steps. Returns the per-episode returns."""
    state, done, returns, ep = env.reset(), False, [], 0.0
    anneal = (1 - mem.priority_weight) / max(1, steps - learn_start)
    for t in range(1, steps + 1):
        if done:
            returns.append(ep)
            state, done, ep = env.reset(), False, 0.0
        if t % replay_frequency == 0:
            agent.reset_noise()
        action = agent.act(state)
        next_state, reward, done = env.step(action)
        ep += reward
        mem.append(state, action, max(min(reward, 1.0), -1.0), done)
        if t >= learn_start:
            mem.priority_weight = min(mem.priority_weight + anneal, 1)
            if t % replay_frequency == 0:
                agent.learn(mem)
            if t % target_update == 0:
                agent.update_target_net()
        state = next_state
    return returns


def install_einops_standin() -> None:
    """fattorib/fusedswiglu's swiglu.py / swiglu_f16.py import einops.rearrange (a plain axis
    permutation, "b sq d -> b d sq"): the earlier corpora's pattern-based rearrange, installed
    always (even where einops is installed), so the run is the same everywhere."""
    from _corpus_support import _einops_rearrange

    stub_module("einops", rearrange=_einops_rearrange, repeat=_einops_rearrange)


def swiglu_check(fn, dtype, shapes, dev, seed: int = 0):
    """Forward and backward of a fused SwiGLU autograd Function against torch in fp32 (kx's code):
    input (b, sq, d) and weights (d, h) of `dtype` requiring grad, out = silu(x @ Wg) * (x @ Wu),
    a random upstream gradient; returns [(shape, out, dx, dWg, dWu rel errs)]."""
    import torch

    torch.manual_seed(seed)
    res = []
    for b, sq, d, h in shapes:
        x = torch.randn(b, sq, d, device=dev, dtype=dtype).requires_grad_(True)
        wg = (torch.randn(d, h, device=dev, dtype=dtype) / d**0.5).requires_grad_(True)
        wu = (torch.randn(d, h, device=dev, dtype=dtype) / d**0.5).requires_grad_(True)
        out = fn(x, wg, wu)
        g = torch.randn_like(out)
        out.backward(g)
        xr, wgr, wur = (t.detach().float().requires_grad_(True) for t in (x, wg, wu))
        ref = torch.nn.functional.silu(xr @ wgr) * (xr @ wur)
        ref.backward(g.float())
        errs = [rel_err(out, ref)] + [rel_err(a.grad, r.grad) for a, r in ((x, xr), (wg, wgr), (wu, wur))]
        res.append(((b, sq, d, h), errs))
    return res
