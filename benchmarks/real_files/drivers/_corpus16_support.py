"""Import helpers and stand-ins for fresh corpus 16's drivers (kx's code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine (the
GPU machine has torch, triton and numpy only). Upstream sources are found on sys.path (the
manifest's "pythonpath" puts the `.realfiles/...` folders there). `small()` is true under
KX_CORPUS_SMALL=1 (toy sizes for a CPU check); by default the drivers run their real sizes.
"""

from __future__ import annotations

import re

import torch
from _corpus9_support import pick, rel_err, small, stub_module  # noqa: F401


def _einops_einsum(*args):
    """einops.einsum(t1, t2, ..., "a b, b c -> a c"): the named axes mapped to letters for
    torch.einsum (names are whitespace-separated; '...' kept)."""
    *tensors, pattern = args
    lhs, rhs = pattern.split("->")
    letters: dict[str, str] = {}

    def spec(side: str) -> str:
        out = []
        for tok in side.split():
            if tok == "...":
                out.append("...")
                continue
            if tok not in letters:
                letters[tok] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[len(letters)]
            out.append(letters[tok])
        return "".join(out)

    ins = [spec(s) for s in lhs.split(",")]
    return torch.einsum(",".join(ins) + "->" + spec(rhs), *tensors)


def install_einops_standin() -> None:
    """sustcsonglin/mamba-triton's scan files import einops' einsum / rearrange / repeat at the
    top (the Triton paths use none of them); cs336's FlashAttentionTorch calls einops.einsum with
    named-axis patterns. A stand-in: einsum through torch.einsum; rearrange / repeat raise if
    called (no driver calls them)."""

    def _unused(name):
        def f(*a, **k):
            raise RuntimeError(f"stand-in: einops.{name} is not used by these drivers")

        return f

    stub_module("einops", einsum=_einops_einsum, rearrange=_unused("rearrange"), repeat=_unused("repeat"))


def install_matplotlib_standin() -> None:
    """jik876/hifi-gan's utils.py (imported by models.py for init_weights / get_padding) imports
    matplotlib, calls matplotlib.use("Agg") and imports matplotlib.pylab for its spectrogram
    plot, which the drivers do not draw."""

    def _no_plot(*a, **k):
        raise RuntimeError("stand-in: matplotlib is not used by these drivers")

    stub_module("matplotlib", use=lambda *a, **k: None)
    stub_module("matplotlib.pylab", subplots=_no_plot, colorbar=_no_plot, close=lambda *a, **k: None)


def install_tqdm_standin() -> None:
    """hkproj/pytorch-stable-diffusion's pipeline.py wraps its timesteps in tqdm: a pass-through."""

    class tqdm:
        def __init__(self, iterable=None, *a, **k):
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable)

        def __len__(self):
            return len(self.iterable)

    stub_module("tqdm", tqdm=tqdm)


class FixedTokenizerStandin:
    """What pipeline.generate reads from its (transformers CLIPTokenizer) tokenizer:
    batch_encode_plus(texts, padding="max_length", max_length=77).input_ids. Each word becomes a
    deterministic id below 49408 between the BOS (49406) and EOS (49407) ids, padded with EOS;
    enough for random-weight CLIP, not a BPE."""

    class _Out:
        def __init__(self, ids):
            self.input_ids = ids

    def batch_encode_plus(self, texts, padding="max_length", max_length=77, **kw):
        rows = []
        for text in texts:
            words = re.findall(r"\w+", text or "")
            ids = [49406] + [sum(ord(c) * 31**i for i, c in enumerate(w)) % 49000 for w in words] + [49407]
            ids = ids[:max_length]
            rows.append(ids + [49407] * (max_length - len(ids)))
        return self._Out(rows)


def slaney_mel_filters(sr: int, n_fft: int, n_mels: int, fmin: float, fmax: float) -> torch.Tensor:
    """The (n_mels, n_fft // 2 + 1) Slaney-style mel filterbank that hifi-gan's meldataset takes
    from librosa.filters.mel (htk=False, norm='slaney'), written out with torch (kx's code):
    hifi-gan's own mel_spectrogram calls torch.stft without return_complex, which current torch
    rejects, so the drivers compute the mel spectrogram themselves with these filters."""
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = torch.log(torch.tensor(6.4, dtype=torch.float64)) / 27.0

    def hz_to_mel(f):
        f = torch.as_tensor(f, dtype=torch.float64)
        return torch.where(
            f >= min_log_hz, min_log_mel + torch.log(f.clamp(min=1e-10) / min_log_hz) / logstep, f / f_sp
        )

    def mel_to_hz(m):
        return torch.where(m >= min_log_mel, min_log_hz * torch.exp(logstep * (m - min_log_mel)), f_sp * m)

    fftfreqs = torch.linspace(0, sr / 2, n_fft // 2 + 1, dtype=torch.float64)
    mel_pts = mel_to_hz(
        torch.linspace(float(hz_to_mel(fmin)), float(hz_to_mel(fmax)), n_mels + 2, dtype=torch.float64)
    )
    fdiff = mel_pts[1:] - mel_pts[:-1]
    ramps = mel_pts[:, None] - fftfreqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = torch.clamp(torch.minimum(lower, upper), min=0)
    enorm = 2.0 / (mel_pts[2 : n_mels + 2] - mel_pts[:n_mels])
    return (weights * enorm[:, None]).float()


def selective_scan_reference(u, delta, A, B, C, D, initial_state=None):
    """Mamba's selective scan written plainly (kx's code): h_t = exp(delta_t A) h_{t-1} +
    delta_t B_t u_t, y_t = C_t . h_t + D u_t, over u / delta (b, T, d), A (d, K), B / C (b, T, K),
    D (d,); returns y (b, T, d) in u's dtype and the final state (b, d, K), both from float32."""
    u32, dt, A32, B32, C32, D32 = (t.float() for t in (u, delta, A, B, C, D))
    b, T, d = u.shape
    h = torch.zeros(b, d, A.shape[1], device=u.device, dtype=torch.float32)
    if initial_state is not None:
        h = h + initial_state.float()
    ys = []
    for t in range(T):
        h = torch.exp(dt[:, t, :, None] * A32) * h + (dt[:, t] * u32[:, t])[:, :, None] * B32[:, t, None, :]
        ys.append((h * C32[:, t, None, :]).sum(-1))
    y = torch.stack(ys, 1) + u32 * D32
    return y.to(u.dtype), h


def attention_reference(q, k, v, causal: bool):
    """softmax(q k^T / sqrt(d)) v over (batch, N, d), in float32 (kx's code)."""
    q32, k32, v32 = q.float(), k.float(), v.float()
    s = q32 @ k32.transpose(-1, -2) / q.shape[-1] ** 0.5
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v32


def load_hifigan_config(name: str):
    """hifi-gan's config_v*.json (beside models.py on sys.path) as its env.AttrDict, the way
    train.py / inference.py read it."""
    import json
    import os
    import sys

    from env import AttrDict

    for entry in sys.path:
        cand = os.path.join(entry or os.getcwd(), name)
        if os.path.isfile(cand) and os.path.isfile(os.path.join(entry or os.getcwd(), "models.py")):
            with open(cand) as f:
                return AttrDict(json.load(f))
    raise FileNotFoundError(name)


def hifigan_mel(y, h, fmax=None, _cache={}):  # noqa: B006 - hifi-gan's own memo idiom
    """hifi-gan's meldataset.mel_spectrogram (reflect pad (n_fft - hop) / 2, STFT without
    centering, magnitude sqrt(re^2 + im^2 + 1e-9), Slaney mel filters, log of clamp 1e-5),
    written with return_complex=True, which current torch requires (kx's code)."""
    key = (str(y.device), h.n_fft, h.num_mels, h.sampling_rate, h.fmin, fmax)
    if key not in _cache:
        fb = slaney_mel_filters(h.sampling_rate, h.n_fft, h.num_mels, h.fmin, fmax or h.sampling_rate / 2)
        _cache[key] = (fb.to(y.device), torch.hann_window(h.win_size, device=y.device))
    fb, window = _cache[key]
    pad = (h.n_fft - h.hop_size) // 2
    y = torch.nn.functional.pad(y.unsqueeze(1), (pad, pad), mode="reflect").squeeze(1)
    spec = torch.stft(
        y,
        h.n_fft,
        hop_length=h.hop_size,
        win_length=h.win_size,
        window=window,
        center=False,
        onesided=True,
        return_complex=True,
    )
    spec = torch.sqrt(spec.real.pow(2) + spec.imag.pow(2) + 1e-9)
    return torch.log(torch.clamp(fb @ spec, min=1e-5))
