"""Import helpers and stand-ins for fresh corpus 19's drivers (kx's code, no upstream code).

The import helpers and `small()` / `pick()` / `rel_err()` are the earlier corpora's (re-exported
through `_corpus18_support`, one copy). Each stand-in here is used whether or not the real package
is installed, so a driver runs the same on any machine (the GPU machine has torch, triton and
numpy only). Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there). `small()` is true under KX_CORPUS_SMALL=1 (toy sizes for a CPU
check); by default the drivers run their real sizes.
"""

from __future__ import annotations

import numpy as np
from _corpus18_support import ToyPendulum, bare_package, pick, rel_err, small, stub_module, unavailable  # noqa: F401


def install_gym_standin() -> None:
    """minimalRL's scripts do `import gym` at the top for main()'s gym.make; the drivers run
    their own loop on a numpy environment, so gym.make is a stand-in that raises if called."""
    stub_module("gym", make=unavailable("gym.make"))


class ToyPendulumV1(ToyPendulum):
    """Corpus 18's numpy pendulum (Gym's Pendulum-v1 dynamics) with the gym >= 0.26 step /
    reset signatures minimalRL's scripts use: reset() -> (obs, info), step(a) -> (obs, r, done,
    truncated, info). Episodes end by truncation at 200 steps (done stays False)."""

    def reset(self):
        return super().reset(), {}

    def step(self, u):
        obs, r, trunc = super().step(np.asarray(u, dtype=np.float64))
        return obs, r, False, trunc, {}


def causal_block_mask(n_blocks: int, block: int, device) -> torch.Tensor:  # noqa: F821
    """Element-level (n_blocks * block)^2 boolean mask of the lower-triangular block pattern
    (True = the block takes part): the dense reference for a block-causal sparsity layout."""
    import torch

    lay = torch.tril(torch.ones(n_blocks, n_blocks, dtype=torch.bool, device=device))
    return lay.repeat_interleave(block, 0).repeat_interleave(block, 1)


def two_moons(n: int, noise: float = 0.05, seed: int = 0):
    """sklearn.datasets.make_moons' two interleaved half circles (kx's numpy code; sklearn is
    not on the GPU machine), as float32 (n, 2)."""
    rng = np.random.default_rng(seed)
    n_out, n_in = n // 2, n - n // 2
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    x = np.concatenate(
        [np.stack([np.cos(t_out), np.sin(t_out)], 1), np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1)]
    )
    x = x + rng.normal(scale=noise, size=x.shape)
    return x[rng.permutation(n)].astype(np.float32)


def namespace_tree(d: dict):
    """A nested dict as nested SimpleNamespaces (the shape DDIM's main.py gives its YAML config
    with dict2namespace; kx's code)."""
    from types import SimpleNamespace

    return SimpleNamespace(**{k: namespace_tree(v) if isinstance(v, dict) else v for k, v in d.items()})


def install_aiayn_train_standins() -> None:
    """attention-is-all-you-need-pytorch's train.py imports dill, tqdm and the legacy torchtext
    data API at the top for its data loading; the driver feeds its own batches to train_epoch /
    eval_epoch, so these are stand-ins (tqdm passes the iterable through)."""
    stub_module("dill", load=unavailable("dill.load"), dump=unavailable("dill.dump"))
    stub_module("tqdm", tqdm=lambda it, *a, **k: it)
    stub_module("torchtext")
    stub_module(
        "torchtext.data",
        Field=unavailable("Field"),
        Dataset=unavailable("Dataset"),
        BucketIterator=unavailable("BucketIterator"),
    )
    stub_module("torchtext.datasets", TranslationDataset=unavailable("TranslationDataset"))


def reversal_batches(
    n_batches: int, batch: int, max_len: int, vocab: int, pad: int, bos: int, eos: int, seed: int = 0
):
    """A toy translation task in torchtext's legacy batch layout (kx's code): .src is
    (src_len, batch) token ids, .trg is (trg_len, batch) = BOS + the source reversed + EOS, both
    padded with `pad`; sources have random lengths in [max_len // 2, max_len]."""
    from types import SimpleNamespace

    import torch

    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_batches):
        lens = torch.randint(max_len // 2, max_len + 1, (batch,), generator=g)
        src = torch.full((batch, max_len), pad, dtype=torch.long)
        trg = torch.full((batch, max_len + 2), pad, dtype=torch.long)
        for i, n in enumerate(lens.tolist()):
            toks = torch.randint(4, vocab, (n,), generator=g)
            src[i, :n] = toks
            trg[i, 0], trg[i, 1 : n + 1], trg[i, n + 1] = bos, toks.flip(0), eos
        out.append(SimpleNamespace(src=src.t().contiguous(), trg=trg.t().contiguous()))
    return out


def install_multipole_standins() -> None:
    """MultipoleAttention's kernels.py / kernel_wrappers.py import pytest at the top (their test
    helpers are never called here); pytest is not on the GPU machine."""
    from _corpus18_support import install_pytest_standin

    install_pytest_standin()
