"""Import helpers and stand-ins for fresh corpus 18's drivers (kx's code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine (the
GPU machine has torch, triton and numpy only). Upstream sources are found on sys.path (the
manifest's "pythonpath" puts the `.realfiles/...` folders there). `small()` is true under
KX_CORPUS_SMALL=1 (toy sizes for a CPU check); by default the drivers run their real sizes.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import torch
from _corpus9_support import bare_package, pick, rel_err, small, stub_module, unavailable  # noqa: F401


def install_e3nn_standin() -> None:
    """EquiTriton's utils.py imports e3nn.o3 at the top for Irreps helpers the direct
    spherical-harmonic kernels never call."""
    stub_module("e3nn")
    stub_module("e3nn.o3", Irreps=unavailable("e3nn.o3.Irreps"), SphericalHarmonics=unavailable("e3nn.o3.SH"))


class _Version:
    """packaging.version.Version as optimi compares torch versions with it: numeric release
    tuple, local / pre-release suffixes ignored."""

    def __init__(self, s: str):
        self.public = str(s).split("+")[0]
        nums = re.findall(r"\d+", self.public.split("a")[0].split("b")[0].split("rc")[0].split(".dev")[0])
        self.release = tuple(int(n) for n in nums[:3]) or (0,)
        self.major, self.minor = (self.release + (0, 0))[:2]

    def _k(self, o):
        o = o if isinstance(o, _Version) else _Version(o)
        n = max(len(self.release), len(o.release))
        return self.release + (0,) * (n - len(self.release)), o.release + (0,) * (n - len(o.release))

    def __lt__(self, o):
        a, b = self._k(o)
        return a < b

    def __le__(self, o):
        a, b = self._k(o)
        return a <= b

    def __gt__(self, o):
        a, b = self._k(o)
        return a > b

    def __ge__(self, o):
        a, b = self._k(o)
        return a >= b

    def __eq__(self, o):
        a, b = self._k(o)
        return a == b

    def __hash__(self):
        return hash(self.release)


def install_packaging_standin() -> dict:
    """optimi/utils.py compares torch.__version__ with packaging.version.parse (packaging is not
    on the GPU machine). Installed under a private name and bound into optimi's namespace only,
    so torch's own lazy imports keep the real package where there is one."""
    import sys

    if "packaging" in sys.modules and not getattr(sys.modules["packaging"], "_kx_standin", False):
        saved = {
            k: sys.modules.pop(k) for k in list(sys.modules) if k == "packaging" or k.startswith("packaging.")
        }
    else:
        saved = {}
    stub_module("packaging", _kx_standin=True)
    stub_module("packaging.version", parse=_Version, Version=_Version)
    return saved


def restore_packaging(saved) -> None:
    import sys

    for k in [k for k in sys.modules if k == "packaging" or k.startswith("packaging.")]:
        del sys.modules[k]
    sys.modules.update(saved)


def install_pytest_standin() -> None:
    """implicit_gemm.triton's triton_kernel/*.py import pytest for their test functions'
    @pytest.mark.parametrize decorators (applied at import time, never run here)."""

    class _Mark:
        def __getattr__(self, name):
            return lambda *a, **k: lambda f: f

    stub_module("pytest", mark=_Mark(), fixture=lambda *a, **k: lambda f: f)


def install_vits_standins() -> None:
    """VITS' modules.py does `import scipy` (unused by the model) and models.py imports the
    Cython monotonic_align extension (training-time alignment only; inference does not call it)."""
    stub_module("scipy")
    stub_module("monotonic_align", maximum_path=unavailable("monotonic_align.maximum_path"))


def install_tacotron2_standins() -> None:
    """Tacotron 2's layers.py / stft.py / audio_processing.py / utils.py import librosa and
    scipy (mel filterbank, STFT window, wav reading) for TacotronSTFT and the data loader, which
    the drivers do not use (they feed mel targets directly)."""
    stub_module("librosa")
    stub_module("librosa.filters", mel=unavailable("librosa.filters.mel"))
    stub_module("librosa.util", pad_center=unavailable("librosa.util.pad_center"), tiny=unavailable("tiny"))
    stub_module("scipy")
    stub_module("scipy.signal", get_window=unavailable("scipy.signal.get_window"))
    stub_module("scipy.io")
    stub_module("scipy.io.wavfile", read=unavailable("scipy.io.wavfile.read"))


def tacotron2_hparams(**over):
    """The values Tacotron 2's hparams.py create_hparams() sets for the model (that file needs
    TensorFlow's HParams; this is a plain namespace with the same names, kx's code)."""
    hp = dict(
        n_symbols=148,
        symbols_embedding_dim=512,
        encoder_kernel_size=5,
        encoder_n_convolutions=3,
        encoder_embedding_dim=512,
        n_mel_channels=80,
        n_frames_per_step=1,
        decoder_rnn_dim=1024,
        prenet_dim=256,
        max_decoder_steps=1000,
        gate_threshold=0.5,
        p_attention_dropout=0.1,
        p_decoder_dropout=0.1,
        attention_rnn_dim=1024,
        attention_dim=128,
        attention_location_n_filters=32,
        attention_location_kernel_size=31,
        postnet_embedding_dim=512,
        postnet_kernel_size=5,
        postnet_n_convolutions=5,
        mask_padding=True,
        fp16_run=False,
        learning_rate=1e-3,
        weight_decay=1e-6,
        grad_clip_thresh=1.0,
    )
    hp.update(over)
    return SimpleNamespace(**hp)


class ToyPendulum:
    """A batch-free pendulum swing-up (Gym's Pendulum-v1 dynamics, numpy, kx's code): state
    (cos th, sin th, th_dot), action torque in [-2, 2], reward -(th^2 + 0.1 th_dot^2 + 0.001 u^2),
    200-step episodes. Stands in for gym, which is not on the GPU machine."""

    state_dim, action_dim, max_action = 3, 1, 2.0

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.th, self.thdot, self.t = self.rng.uniform(-np.pi, np.pi), self.rng.uniform(-1, 1), 0
        return self._obs()

    def _obs(self):
        return np.array([np.cos(self.th), np.sin(self.th), self.thdot], dtype=np.float32)

    def step(self, u):
        u = float(np.clip(u[0], -2.0, 2.0))
        norm = ((self.th + np.pi) % (2 * np.pi)) - np.pi
        cost = norm**2 + 0.1 * self.thdot**2 + 0.001 * u**2
        self.thdot = np.clip(self.thdot + (3 * 10.0 / 2 * np.sin(self.th) + 3.0 * u) * 0.05, -8, 8)
        self.th = self.th + self.thdot * 0.05
        self.t += 1
        return self._obs(), -cost, self.t >= 200

    def sample_action(self):
        return self.rng.uniform(-2, 2, size=(1,)).astype(np.float32)


def random_point_clouds(batch: int, n_points: int, n_classes: int, seed: int = 0):
    """ModelNet40-shaped batches (kx's code, no dataset on the GPU machine): each class is a
    noisy sample of a different ellipsoid, so a classifier can fit it; (B, N, 3) points and
    (B,) labels."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, n_classes, (batch,), generator=g)
    axes = 0.3 + torch.rand(n_classes, 3, generator=g)
    d = torch.randn(batch, n_points, 3, generator=g)
    d = d / d.norm(dim=-1, keepdim=True)
    pts = d * axes[labels][:, None, :] + 0.02 * torch.randn(batch, n_points, 3, generator=g)
    return pts, labels


def random_molecules(batch: int, n_nodes: int, n_feat: int, seed: int = 0):
    """QM9-like fully connected molecules for EGNN (kx's code): one-hot atom types, 3-D
    positions, and a target that depends on the pairwise distances (so it is E(3)-invariant)."""
    g = torch.Generator().manual_seed(seed)
    types = torch.randint(0, n_feat, (batch * n_nodes,), generator=g)
    h = torch.nn.functional.one_hot(types, n_feat).float()
    x = torch.randn(batch * n_nodes, 3, generator=g) * 1.5
    xb = x.view(batch, n_nodes, 3)
    y = (1.0 / (1.0 + torch.cdist(xb, xb))).sum((1, 2)) / n_nodes
    return h, x, y
