"""Import helpers and stand-ins for fresh corpus 21's drivers (kx's code, no upstream code).

The import helpers, `device()` / `sync()` / `small()` / `pick()` / `rel_err()` / `load_path()`
are corpus 20's (re-exported from `_corpus20_support`, one copy); the GPTQ round-to-nearest
helpers are corpus 9's. Each stand-in here is used whether or not the real package is installed,
so a driver runs the same on any machine (the GPU machine has torch, triton and numpy only).
Upstream sources are found on sys.path (the manifest's "pythonpath" puts the `.realfiles/...`
folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU check); by
default the drivers run their real sizes on "cuda" (`device()`; KX_CORPUS_DEVICE overrides it).
"""

from __future__ import annotations

import numpy as np
from _corpus9_support import gptq_dequantize, gptq_rtn_params  # noqa: F401
from _corpus20_support import (  # noqa: F401
    ToyReacher,
    bare_package,
    device,
    load_path,
    pick,
    reacher_move,
    rel_err,
    small,
    stub_module,
    sync,
    unavailable,
)
from _corpus_support import find_on_path  # noqa: F401


def install_triton2_autotune_shims() -> None:
    """GPTQ-for-LLaMa's quant/custom_autotune.py (copied from GPTQ-triton in the Triton 2.0 days)
    calls triton.testing.do_bench(..., percentiles=(0.5, 0.2, 0.8), rep=40) and catches
    triton.compiler.OutOfResources; Triton 3 names these quantiles= and
    triton.runtime.errors.OutOfResources. The shim passes percentiles on as quantiles and gives
    triton.compiler the old name; the kernels and the autotuner's logic are the file's own."""
    import triton
    import triton.compiler
    import triton.testing
    from triton.runtime.errors import OutOfResources

    if not hasattr(triton.compiler, "OutOfResources"):
        triton.compiler.OutOfResources = OutOfResources
    do_bench = triton.testing.do_bench
    if getattr(do_bench, "_kx_percentiles", False):
        return

    def do_bench_percentiles(fn, *args, percentiles=None, **kw):
        if percentiles is not None:
            kw["quantiles"] = list(percentiles)
        return do_bench(fn, *args, **kw)

    do_bench_percentiles._kx_percentiles = True
    triton.testing.do_bench = do_bench_percentiles


def install_llama_rmsnorm_standin():
    """GPTQ-for-LLaMa's quant/triton_norm.py imports transformers' LlamaRMSNorm at the top (its
    make_quant_norm swaps those modules out); a stand-in class with the same formula (kx's code:
    fp32 mean square, rsqrt, weight times the input-dtype result)."""
    import torch
    from torch import nn

    class LlamaRMSNorm(nn.Module):
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(hidden_size))
            self.variance_epsilon = eps

        def forward(self, x):
            dt = x.dtype
            h = x.float()
            h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.variance_epsilon)
            return self.weight * h.to(dt)

    stub_module("transformers")
    stub_module("transformers.models")
    stub_module("transformers.models.llama")
    stub_module("transformers.models.llama.modeling_llama", LlamaRMSNorm=LlamaRMSNorm)
    return LlamaRMSNorm


def install_scipy_standin() -> None:
    """ikostrikov/pytorch-flows' flows.py imports scipy and scipy.linalg at the top (only
    LUInvertibleMM's constructor calls scipy.linalg.lu, which these drivers do not build)."""
    sp = stub_module("scipy")
    sp.linalg = stub_module("scipy.linalg", lu=unavailable("scipy.linalg.lu"))


def toy_density(n: int, dim: int, seed: int = 0):
    """A non-Gaussian toy density for the flow drivers (kx's code): a mixture of four shifted,
    correlated Gaussians in `dim` dimensions passed through a coordinate-wise sinh warp,
    standardised; float32 (n, dim)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    centers = 2.5 * torch.randn(4, dim, generator=g)
    mix = torch.randn(4, dim, dim, generator=g) / dim**0.5 + torch.eye(dim)
    comp = torch.randint(0, 4, (n,), generator=g)
    z = torch.randn(n, dim, generator=g)
    x = torch.einsum("nd,nde->ne", z, mix[comp]) + centers[comp]
    x = torch.sinh(0.5 * x)
    return ((x - x.mean(0)) / x.std(0)).float()


def toy_binary_images(n: int, side: int, seed: int = 0):
    """Binarised toy images for karpathy/pytorch-made (kx's code): each row a side x side image of
    one to three random axis-aligned bright rectangles plus 2% flip noise, flattened to
    (n, side * side) float32 in {0, 1} (the file's run.py reads binarised MNIST from an .npz)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, side, side), np.float32)
    for i in range(n):
        for _ in range(rng.integers(1, 4)):
            y0, x0 = rng.integers(0, side - 2, 2)
            h, w = rng.integers(2, max(3, side // 2), 2)
            out[i, y0 : y0 + h, x0 : x0 + w] = 1.0
    flip = rng.random(out.shape) < 0.02
    out[flip] = 1.0 - out[flip]
    return out.reshape(n, side * side)


class ToyCartPole:
    """A batched-free numpy cart-pole (kx's code) with gym's CartPole-v1 dynamics and reward (1
    per step, done when the pole passes 12 degrees, the cart leaves +-2.4 or after 500 steps),
    for PPO-PyTorch's discrete-action agent. reset() -> obs (4,), step(a) -> (obs, r, done)."""

    def __init__(self, seed: int = 0, horizon: int = 500):
        self.rng, self.h = np.random.default_rng(seed), horizon

    def reset(self):
        self.s, self.t = self.rng.uniform(-0.05, 0.05, 4), 0
        return self.s.astype(np.float32)

    def step(self, a):
        x, xd, th, thd = self.s
        f = 10.0 if int(a) == 1 else -10.0
        ct, st = np.cos(th), np.sin(th)
        tmp = (f + 0.05 * thd**2 * st) / 1.1
        thacc = (9.8 * st - ct * tmp) / (0.5 * (4.0 / 3.0 - 0.1 * ct**2 / 1.1))
        xacc = tmp - 0.05 * thacc * ct / 1.1
        self.s = np.array([x + 0.02 * xd, xd + 0.02 * xacc, th + 0.02 * thd, thd + 0.02 * thacc])
        self.t += 1
        done = bool(abs(self.s[0]) > 2.4 or abs(self.s[2]) > 0.2095 or self.t >= self.h)
        return self.s.astype(np.float32), 1.0, done


def offline_dataset(n: int, obs_dim: int, act_dim: int, seed: int = 0):
    """An offline transition data set for TD3+BC / BCQ (kx's code): ToyReacher rollouts of a noisy
    proportional behaviour policy (action = clip(goal - position + noise)); returns numpy
    (state, action, next_state, reward, done) arrays of n rows (obs_dim = 2 * act_dim)."""
    assert obs_dim == 2 * act_dim
    env = ToyReacher(n_envs=16, dim=act_dim, horizon=50, seed=seed)
    rng = np.random.default_rng(seed + 1)
    cols = [[], [], [], [], []]
    obs, rows = env.obs(), 0
    while rows < n:
        a = np.clip(
            3.0 * (obs[:, act_dim:] - obs[:, :act_dim]) + 0.3 * rng.standard_normal((16, act_dim)), -1, 1
        ).astype(np.float32)
        nxt, r, d = env.step(a)
        for c, v in zip(cols, (obs, a, nxt, r, d.astype(np.float32))):
            c.append(v)
        obs, rows = nxt, rows + len(nxt)
    return tuple(np.concatenate(c)[:n] for c in cols)


def params_rel_err(m1, m2) -> float:
    """rel_err over all parameters of two modules flattened together (parameters that stay near
    zero, e.g. a log-scale under Adam, make per-tensor relative errors meaningless)."""
    import torch

    a = torch.cat([p.detach().float().flatten() for p in m1.parameters()])
    b = torch.cat([p.detach().float().flatten() for p in m2.parameters()])
    return rel_err(a, b)


def install_bcq_discrete_standins() -> None:
    """sfujim/BCQ's discrete_BCQ/utils.py imports cv2 and gym at the top (its Atari buffer's frame
    preprocessing and make_env); the drivers use its StandardBuffer only, so these raise if used."""
    stub_module("cv2", resize=unavailable("cv2.resize"), INTER_AREA=3)
    gym = stub_module("gym", make=unavailable("gym.make"))
    gym.spaces = stub_module("gym.spaces")
