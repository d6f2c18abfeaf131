"""The task library of kx's KernelBench-style evaluator: nine tasks, each a reference
(plain numpy in float32, as a framework's eager code would compute it), an input maker for each
input distribution, and parameters (default: a fixed draw; random: a fresh draw that may
flip signs, which is what catches a candidate relying on positive scales).

Candidates live in kx_core/data/kernelbench/<task>/<name>.py: each defines
`forward(x, params, alloc)` and optionally `init(params)` (run once, e.g. to fold
weights); its docstring's first line says what it tries.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DISTS = ("normal", "uniform", "laplace", "lognormal", "offset")
DIST_NOTES = {
    "normal": "standard normal",
    "uniform": "uniform on (-1, 1)",
    "laplace": "Laplace, scale 1 (heavier tails)",
    "lognormal": "lognormal, sigma 1.5: all positive, values in the hundreds",
    "offset": "normal with mean 1000: large common offset",
}


def draw(rng: np.random.Generator, shape, dist: str) -> np.ndarray:
    """float32 inputs from one of the five distributions."""
    if dist == "normal":
        x = rng.standard_normal(shape)
    elif dist == "uniform":
        x = rng.uniform(-1.0, 1.0, shape)
    elif dist == "laplace":
        x = rng.laplace(0.0, 1.0, shape)
    elif dist == "lognormal":
        x = rng.lognormal(0.0, 1.5, shape)
    elif dist == "offset":
        x = 1000.0 + rng.standard_normal(shape)
    else:
        raise ValueError(f"unknown distribution {dist!r}; one of {', '.join(DISTS)}")
    return x.astype(np.float32)


@dataclass(frozen=True)
class Task:
    name: str
    description: str
    reference: Callable  # (x, params) -> np.ndarray
    make_inputs: Callable  # (rng, dist) -> x
    make_params: Callable  # (rng, random: bool) -> dict
    # the same computation on torch tensors (on the GPU): what a GPU candidate is timed
    # against, as KernelBench times kernels against PyTorch eager on the device
    torch_reference: Callable | None = None

    def ref_fn(self) -> Callable:
        return self.reference


def _gelu_tanh(x):
    x = np.asarray(x, np.float32)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _softmax(x):
    x = np.asarray(x, np.float32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layernorm(x, p):
    x = np.asarray(x, np.float32)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * p["gamma"] + p["beta"]


def _silu(x):
    return x / (1.0 + np.exp(-x))


def _weights(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _scales(rng, n, random):
    # default parameters: positive scales (as a fresh nn.Linear-style init would give);
    # random ones: either sign
    s = rng.uniform(0.5, 1.5, n) if not random else rng.uniform(-1.5, 1.5, n)
    return s.astype(np.float32)


N_DIAG, ROWS, COLS, D_IN, D_HID = 384, 128, 512, 256, 384

TASKS = (
    Task(
        "L1_diag_matmul",
        "diag(a) @ B",
        lambda x, p: (np.diag(x["a"]) @ x["B"]).astype(np.float32),
        lambda rng, d: {"a": draw(rng, N_DIAG, d), "B": draw(rng, (N_DIAG, N_DIAG), d)},
        lambda rng, random: {},
    ),
    Task(
        "L1_softmax",
        "softmax over the last dim",
        lambda x, p: _softmax(x).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, COLS), d),
        lambda rng, random: {},
        lambda x, p: __import__("torch").softmax(x, dim=-1),
    ),
    Task(
        "L1_layernorm",
        "layer norm over the last dim, eps 1e-5, with gamma and beta",
        lambda x, p: _layernorm(x, p).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, COLS), d),
        lambda rng, random: {
            "gamma": (rng.uniform(0.5, 1.5, COLS) if random else np.ones(COLS)).astype(np.float32),
            "beta": (rng.standard_normal(COLS) * 0.1 if random else np.zeros(COLS)).astype(np.float32),
        },
    ),
    Task(
        "L1_gelu",
        "GELU, tanh form",
        lambda x, p: _gelu_tanh(x).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, COLS), d),
        lambda rng, random: {},
        lambda x, p: __import__("torch").nn.functional.gelu(x, approximate="tanh"),
    ),
    Task(
        "L1_matmul_rowsum",
        "(A @ B).sum(axis=1)",
        lambda x, p: (x["A"] @ x["B"]).sum(axis=1).astype(np.float32),
        lambda rng, d: {"A": draw(rng, (ROWS, D_IN), d), "B": draw(rng, (D_IN, D_HID), d)},
        lambda rng, random: {},
    ),
    Task(
        "L1_rmsnorm",
        "RMS norm over the last dim, eps 1e-6, with a weight",
        lambda x, p: (
            np.asarray(x, np.float32)
            / np.sqrt((np.asarray(x, np.float32) ** 2).mean(axis=-1, keepdims=True) + 1e-6)
            * p["w"]
        ).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, COLS), d),
        lambda rng, random: {
            "w": (rng.uniform(0.5, 1.5, COLS) if random else np.ones(COLS)).astype(np.float32)
        },
    ),
    Task(
        "L2_scale_bias_relu",
        "relu((x @ W) * s + b), s a per-column scale",
        lambda x, p: np.maximum((np.asarray(x, np.float32) @ p["W"]) * p["s"] + p["b"], 0.0).astype(
            np.float32
        ),
        lambda rng, d: draw(rng, (ROWS, D_IN), d) / 16.0,
        lambda rng, random: {
            "W": _weights(rng, (D_IN, D_HID), 1 / 16),
            "s": _scales(rng, D_HID, random),
            "b": (rng.standard_normal(D_HID) * 0.1).astype(np.float32),
        },
    ),
    Task(
        "L2_bias_gelu_residual",
        "gelu(x @ W + b) + x @ R  (an MLP epilogue with a projected residual)",
        lambda x, p: (
            _gelu_tanh(np.asarray(x, np.float32) @ p["W"] + p["b"]) + np.asarray(x, np.float32) @ p["R"]
        ).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, D_IN), d) / 16.0,
        lambda rng, random: {
            "W": _weights(rng, (D_IN, D_HID), 1 / 16),
            "b": (rng.standard_normal(D_HID) * 0.1).astype(np.float32),
            "R": _weights(rng, (D_IN, D_HID), 1 / 16),
        },
    ),
    Task(
        "L3_mlp_block",
        "(silu(x @ Wg) * (x @ Wu)) @ Wd  (a gated MLP)",
        lambda x, p: (
            (_silu(np.asarray(x, np.float32) @ p["Wg"]) * (np.asarray(x, np.float32) @ p["Wu"])) @ p["Wd"]
        ).astype(np.float32),
        lambda rng, d: draw(rng, (ROWS, D_IN), d) / 16.0,
        lambda rng, random: {
            "Wg": _weights(rng, (D_IN, D_HID), 1 / 16),
            "Wu": _weights(rng, (D_IN, D_HID), 1 / 16),
            "Wd": _weights(rng, (D_HID, D_IN), 1 / 16),
        },
    ),
)

TASK = {t.name: t for t in TASKS}
