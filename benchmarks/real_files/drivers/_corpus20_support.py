"""Import helpers and stand-ins for fresh corpus 20's drivers (kx's code, no upstream code).

The import helpers and `small()` / `pick()` / `rel_err()` are the earlier corpora's (re-exported
through `_corpus19_support`, one copy). Each stand-in here is used whether or not the real package
is installed, so a driver runs the same on any machine (the GPU machine has torch, triton and
numpy only). Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU
check); by default the drivers run their real sizes on "cuda" (`device()`; KX_CORPUS_DEVICE
overrides it for a CPU check).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import SimpleNamespace

import numpy as np
from _corpus19_support import bare_package, pick, rel_err, small, stub_module, unavailable  # noqa: F401


def device() -> str:
    """"cuda" unless KX_CORPUS_DEVICE says otherwise (a CPU check under TRITON_INTERPRET=1)."""
    return os.environ.get("KX_CORPUS_DEVICE", "cuda")


def sync() -> None:
    import torch

    if device() == "cuda":
        torch.cuda.synchronize()


def load_path(name: str, rel: str):
    """Import an upstream file whose name is not a module name (e.g. 'rms-norm.py') from sys.path."""
    path = next((os.path.join(e or os.getcwd(), rel) for e in sys.path if os.path.isfile(os.path.join(e or os.getcwd(), rel))), None)
    if path is None:
        raise ImportError(f"{rel!r} is not under any sys.path entry; set PYTHONPATH as the manifest says")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def install_einops_standin() -> None:
    """lucidrains/triton-transformer imports einops.rearrange (not on the GPU machine): the
    earlier corpora's pattern-based stand-in."""
    from _corpus_support import einops_standin

    einops_standin()


def install_matplotlib_standin() -> None:
    """limei1221/triton-rmsnorm imports matplotlib.pyplot at the top for its benchmark plots."""
    stub_module("matplotlib")
    stub_module("matplotlib.pyplot", show=unavailable("plt.show"), savefig=unavailable("plt.savefig"))


def install_cleanrl_standins() -> None:
    """CleanRL's single-file scripts import gymnasium, tyro, torch.utils.tensorboard and
    cleanrl_utils.buffers at the top for their __main__ loops; the drivers import the network
    classes only and run their own loops on kx's numpy environment, so these are stand-ins
    that raise if called."""
    gym = stub_module("gymnasium", make=unavailable("gymnasium.make"))
    gym.spaces = stub_module("gymnasium.spaces", Box=object, Discrete=object)
    gym.wrappers = stub_module("gymnasium.wrappers")
    gym.vector = stub_module("gymnasium.vector", SyncVectorEnv=unavailable("SyncVectorEnv"))
    stub_module("tyro", cli=unavailable("tyro.cli"))
    stub_module("torch.utils.tensorboard", SummaryWriter=unavailable("SummaryWriter"))
    stub_module("cleanrl_utils")
    stub_module("cleanrl_utils.buffers", ReplayBuffer=unavailable("ReplayBuffer"))
    wrappers = ("ClipRewardEnv", "EpisodicLifeEnv", "FireResetEnv", "MaxAndSkipEnv", "NoopResetEnv")
    stub_module("cleanrl_utils.atari_wrappers", **{w: unavailable(w) for w in wrappers})


def box_envs(obs_dim: int, act_dim: int, low: float = -1.0, high: float = 1.0, n_envs: int = 1):
    """The attributes CleanRL's networks read from a gymnasium vector env: single_observation_space
    .shape, single_action_space .shape / .low / .high (a Box), and the batched action_space
    (n_envs, act_dim) that ddpg_continuous_action.py's Actor reads."""
    return SimpleNamespace(
        num_envs=n_envs,
        single_observation_space=SimpleNamespace(shape=(obs_dim,), dtype=np.float32),
        single_action_space=SimpleNamespace(
            shape=(act_dim,), low=np.full(act_dim, low, np.float32), high=np.full(act_dim, high, np.float32)
        ),
        action_space=SimpleNamespace(
            shape=(n_envs, act_dim), low=np.full((n_envs, act_dim), low, np.float32), high=np.full((n_envs, act_dim), high, np.float32)
        ),
    )


class ToyReacher:
    """A batched numpy point-mass reacher (kx's code): n_envs points in obs_dim // 2 dimensions
    pushed by actions in [-1, 1]; obs = (position, goal); reward = -distance; episodes end at
    `horizon` steps or within 0.05 of the goal (then the env resets)."""

    def __init__(self, n_envs: int, dim: int = 4, horizon: int = 100, seed: int = 0):
        self.n, self.d, self.h = n_envs, dim, horizon
        self.rng = np.random.default_rng(seed)
        self.pos = self.rng.uniform(-1, 1, (n_envs, dim))
        self.goal = self.rng.uniform(-1, 1, (n_envs, dim))
        self.t = np.zeros(n_envs, dtype=np.int64)

    def obs(self):
        return np.concatenate([self.pos, self.goal], 1).astype(np.float32)

    def step(self, a):
        a = np.clip(np.asarray(a, dtype=np.float64), -1, 1)
        self.pos = np.clip(self.pos + 0.1 * a, -2, 2)
        dist = np.linalg.norm(self.pos - self.goal, axis=1)
        self.t += 1
        done = (dist < 0.05) | (self.t >= self.h)
        r = -dist
        for i in np.nonzero(done)[0]:
            self.pos[i] = self.rng.uniform(-1, 1, self.d)
            self.goal[i] = self.rng.uniform(-1, 1, self.d)
            self.t[i] = 0
        return self.obs(), r.astype(np.float32), done


def random_graph(n_nodes: int, n_feat: int, n_class: int, avg_deg: int, device, seed: int = 0):
    """A random graph in pygcn's load_data form (kx's code): row-normalised features, the
    symmetric-normalised adjacency with self loops as a torch sparse COO FloatTensor (pygcn's
    normalize + sparse_mx_to_torch_sparse_tensor), labels from a planted class structure."""
    import torch

    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, n_class, (n_nodes,), generator=g)
    src = torch.randint(0, n_nodes, (n_nodes * avg_deg,), generator=g)
    # edges mostly inside a class: pair each source with a random node of the same label
    order = torch.argsort(labels)
    counts = torch.bincount(labels, minlength=n_class)
    starts = torch.cumsum(counts, 0) - counts
    pick_ = (torch.rand(src.shape, generator=g) * counts[labels[src]]).long()
    dst = order[starts[labels[src]] + pick_]
    noise = torch.rand(src.shape, generator=g) < 0.2
    dst = torch.where(noise, torch.randint(0, n_nodes, src.shape, generator=g), dst)
    idx = torch.cat([torch.stack([src, dst]), torch.stack([dst, src]), torch.arange(n_nodes).repeat(2, 1)], 1)
    adj = torch.sparse_coo_tensor(idx, torch.ones(idx.shape[1]), (n_nodes, n_nodes)).coalesce()
    adj = torch.sparse_coo_tensor(adj.indices(), torch.ones_like(adj.values()), adj.shape).coalesce()
    deg = torch.sparse.sum(adj, 1).to_dense()
    r = adj.indices()[0]
    adj = torch.sparse_coo_tensor(adj.indices(), adj.values() / deg[r], adj.shape).coalesce()  # pygcn: D^-1 (A + I)
    centers = torch.randn(n_class, n_feat, generator=g)
    feat = (centers[labels] + 2.0 * torch.randn(n_nodes, n_feat, generator=g)).clamp_min(0)
    feat = feat / feat.sum(1, keepdim=True).clamp_min(1e-6)
    return feat.to(device), adj.to(device), labels.to(device)


def install_perf_report_standin() -> None:
    """limei1221/triton-rmsnorm's rms-norm.py ends with `bench_rms_norm.run(save_path='.',
    print_data=True)` at import (a triton.testing.perf_report sweep of 30 widths x 3 providers
    with matplotlib plots); the driver replaces perf_report with a decorator whose .run only
    says it was skipped (the file's own correctness test, just before it, still runs)."""
    import triton.testing

    def perf_report(benchmarks):
        def deco(fn):
            return SimpleNamespace(fn=fn, benchmarks=benchmarks, run=lambda **kw: print("(perf_report sweep skipped)"))

        return deco

    triton.testing.perf_report = perf_report


def install_dt_atari_standins() -> None:
    """decision-transformer's atari/mingpt/trainer_atari.py imports tqdm, atari_py, cv2 and PIL
    at the top (its DataLoader loop and the ALE environment); the drivers use its TrainerConfig
    and run their own loops, so these are stand-ins (tqdm passes the iterable through)."""
    stub_module("tqdm", tqdm=lambda it, *a, **k: it)
    stub_module("atari_py", ALEInterface=unavailable("ALEInterface"), get_game_path=unavailable("get_game_path"))
    stub_module("cv2", resize=unavailable("cv2.resize"), INTER_LINEAR=1)
    stub_module("PIL")
    stub_module("PIL.Image")


class ToyAtari:
    """A stand-in Atari env in the shape trainer_atari.Env returns (kx's code): states are
    stacks of 4 84x84 frames in [0, 1] (a moving bright square on noise), reward 1 when the action
    matches the square's quadrant, the episode ends after a random length (the stop condition of
    get_returns' while loop)."""

    def __init__(self, n_actions: int, max_len: int, seed: int = 0):
        import torch

        self.torch, self.n_actions, self.max_len = torch, n_actions, max_len
        self.g = torch.Generator().manual_seed(seed)

    def reset(self):
        t = self.torch
        self.t = 0
        self.len = int(t.randint(self.max_len // 2, self.max_len + 1, (1,), generator=self.g))
        self.pos = t.randint(0, 70, (2,), generator=self.g)
        self.frames = [self._frame() for _ in range(4)]
        return t.stack(self.frames, 0)

    def _frame(self):
        t = self.torch
        f = 0.1 * t.rand(84, 84, generator=self.g)
        y, x = self.pos.tolist()
        f[y : y + 14, x : x + 14] = 1.0
        return f

    def step(self, action):
        t = self.torch
        y, x = self.pos.tolist()
        quad = 2 * (y >= 35) + (x >= 35)
        reward = float(int(action) % 4 == quad)
        self.pos = (self.pos + t.randint(-6, 7, (2,), generator=self.g)).clamp(0, 70)
        self.frames = self.frames[1:] + [self._frame()]
        self.t += 1
        return t.stack(self.frames, 0), reward, self.t >= self.len


class TensorReplayBuffer:
    """A stand-in for stable-baselines3's ReplayBuffer as CleanRL's scripts use it (kx's code):
    add(obs, next_obs, actions, rewards, dones) from numpy, sample(batch) -> a namespace of
    device tensors observations / next_observations / actions / rewards (B, 1) / dones (B, 1),
    drawn with the buffer's own generator (so that two runs see the same batches)."""

    def __init__(self, size: int, obs_dim: int, act_shape: tuple, device, act_dtype=None, seed: int = 0):
        import torch

        self.t, self.size, self.dev, self.n, self.pos = torch, size, device, 0, 0
        self.obs = torch.zeros(size, obs_dim)
        self.next_obs = torch.zeros(size, obs_dim)
        self.actions = torch.zeros((size,) + tuple(act_shape), dtype=act_dtype or torch.float32)
        self.rewards = torch.zeros(size, 1)
        self.dones = torch.zeros(size, 1)
        self.g = torch.Generator().manual_seed(seed)

    def add(self, obs, next_obs, actions, rewards, dones):
        t = self.t
        for i in range(len(obs)):
            p = self.pos
            self.obs[p], self.next_obs[p] = t.as_tensor(obs[i]), t.as_tensor(next_obs[i])
            self.actions[p] = t.as_tensor(actions[i])
            self.rewards[p, 0], self.dones[p, 0] = float(rewards[i]), float(dones[i])
            self.pos, self.n = (p + 1) % self.size, min(self.n + 1, self.size)

    def sample(self, batch: int):
        idx = self.t.randint(0, self.n, (batch,), generator=self.g)
        return SimpleNamespace(
            observations=self.obs[idx].to(self.dev),
            next_observations=self.next_obs[idx].to(self.dev),
            actions=self.actions[idx].to(self.dev),
            rewards=self.rewards[idx].to(self.dev),
            dones=self.dones[idx].to(self.dev),
        )


def discrete_envs(obs_dim: int, n_actions: int, n_envs: int = 1):
    """The attributes CleanRL's discrete-action networks read: single_observation_space.shape and
    single_action_space.n (a Discrete)."""
    return SimpleNamespace(
        num_envs=n_envs,
        single_observation_space=SimpleNamespace(shape=(obs_dim,), dtype=np.float32),
        single_action_space=SimpleNamespace(n=n_actions),
    )


def reacher_move(actions, dim: int):
    """Discrete ToyReacher actions (kx's code): 0 = stay, 1 + 2k / 2 + 2k = -/+ unit step on axis k."""
    a = np.asarray(actions).astype(np.int64)
    mv = np.zeros((len(a), dim))
    for i, ai in enumerate(a):
        if ai > 0:
            mv[i, (ai - 1) // 2] = 1.0 if ai % 2 == 0 else -1.0
    return mv
