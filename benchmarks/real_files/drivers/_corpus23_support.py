"""Import helpers, stand-ins, data makers, references and shared loops for fresh corpus 23's
drivers (kx's code, no upstream code).

The import helpers `device()` / `sync()` / `small()` / `pick()` / `rel_err()` / `stub_module()` /
`unavailable()`, the einops stand-in and the data makers `toy_cifar()` / `markov_tokens()` are
the earlier corpora's (re-exported from `_corpus22_support`, one copy). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine
(the GPU machine has torch, triton and numpy only). Upstream sources are found on sys.path (the
manifest's "pythonpath" puts the `.realfiles/...` folders there). `small()` is true under
KX_CORPUS_SMALL=1 (toy sizes for a CPU check); by default the drivers run their real sizes on
"cuda" (`device()`; KX_CORPUS_DEVICE overrides it).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from _corpus22_support import (  # noqa: F401
    device,
    install_einops_standin,
    markov_tokens,
    pick,
    rel_err,
    small,
    stub_module,
    sync,
    toy_cifar,
    unavailable,
)

# ---------------------------------------------------------------------------------------------
# yukikotani231/bitnet-triton: ternary (absmean) quantisation reference and a shared check loop
# ---------------------------------------------------------------------------------------------


def ternary_ref(w):
    """BitNet b1.58 absmean quantisation per output row, as bitnet_triton/packing.py documents it
    (kx's code): scale = mean |w| of the row (clamped at 1e-5), q = clamp(round(w / scale), -1, 1);
    returns the dequantised (N, K) fp32 weight q * scale."""
    import torch

    w = w.float()
    scale = w.abs().mean(dim=1, keepdim=True).clamp(min=1e-5)
    return torch.clamp(torch.round(w / scale), -1, 1) * scale


def bitnet_layers(shapes, dev, seed: int = 0):
    """[(K, N, fp32 weight (N, K) on dev)] with LLaMA-like init scale 1 / sqrt(K)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    return [(k, n, (torch.randn(n, k, generator=g) / math.sqrt(k)).to(dev)) for k, n in shapes]


def bitnet_check(fns, pack, layers, token_counts, dtypes, dev, seed: int = 1):
    """Pack each layer with the library's pack_weights (on the CPU, as the library does) and run
    every wrapper fn(x, packed, scale, K) on 2-D and 3-D activations of every token count and
    dtype; rel err against x @ ternary_ref(w)^T in fp32. Returns {wrapper name: max rel err}."""
    import torch

    torch.manual_seed(seed)
    errs = {}
    for k, n, w in layers:
        packed, scale = pack(w)
        ref_w = ternary_ref(w)
        for m in token_counts:
            for dt in dtypes:
                x = torch.randn(m, k, device=dev, dtype=dt)
                if m % 2 == 0 and m > 2:
                    x = x.view(2, m // 2, k)
                ref = x.float() @ ref_w.t()
                for fn in fns:
                    e = rel_err(fn(x, packed, scale, k), ref)
                    errs[fn.__name__] = max(errs.get(fn.__name__, 0.0), e)
    return errs


# ---------------------------------------------------------------------------------------------
# vv137/sinkhorn: point-cloud cost matrices with variable lengths
# ---------------------------------------------------------------------------------------------


def point_cloud_costs(b: int, n: int, m: int, d: int, dev, seed: int = 0, ragged: bool = True):
    """Two batches of point clouds (source a Gaussian blob, target the same blob shifted and
    rotated plus noise) and their squared-Euclidean cost (B, N, M), normalised by the mean cost.
    With ragged, the last half of the batch has random valid lengths (masks True = valid).
    Returns (C, x (B, N, d), y (B, M, d), mask_a, mask_b)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    x = torch.randn(b, n, d, generator=g)
    q, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
    y = torch.randn(b, m, d, generator=g) @ q + 0.5 + 0.1 * torch.randn(b, m, d, generator=g)
    c = torch.cdist(x, y) ** 2
    c = c / c.mean()
    mask_a = torch.ones(b, n, dtype=torch.bool)
    mask_b = torch.ones(b, m, dtype=torch.bool)
    if ragged:
        for i in range(b // 2, b):
            mask_a[i, int(torch.randint(n // 2, n + 1, (1,), generator=g)) :] = False
            mask_b[i, int(torch.randint(m // 2, m + 1, (1,), generator=g)) :] = False
    return c.to(dev), x.to(dev), y.to(dev), mask_a.to(dev), mask_b.to(dev)


def first_last(values):
    """The mean of the first and of the last tenth of a loss curve (at least one value each)."""
    k = max(1, len(values) // 10)
    return sum(values[:k]) / k, sum(values[-k:]) / k


def masked_rel_err(a, b, mask) -> float:
    """rel_err over the entries where mask is True (padding potentials are arbitrary)."""
    import torch

    return rel_err(torch.where(mask, a, 0.0), torch.where(mask, b, 0.0))


# ---------------------------------------------------------------------------------------------
# fattorib/hawk-pytorch: RG-LRU reference, config and token data
# ---------------------------------------------------------------------------------------------


def rglru_scan_ref(x, x_gate, a_gate, a_param):
    """The RG-LRU recurrence the fused scan computes (kx's code, fp32, from the Griffin paper's
    equations as hawk.py's inference_prologue writes them): a_t = exp(-8 sigmoid(a_gate)
    softplus(a_param)), h_t = a_t h_{t-1} + sqrt(1 - a_t^2) (x_t sigmoid(x_gate)), h_{-1} = 0."""
    import torch

    x, xg, ag, ap = (t.float() for t in (x, x_gate, a_gate, a_param))
    log_a = -8.0 * torch.sigmoid(ag) * torch.nn.functional.softplus(ap)
    a = torch.exp(log_a)
    beta = x * torch.sigmoid(xg) * torch.sqrt(1 - torch.exp(2 * log_a))
    h, out = torch.zeros_like(x[:, 0]), []
    for t in range(x.shape[1]):
        h = a[:, t] * h + beta[:, t]
        out.append(h)
    return torch.stack(out, 1)


def hawk_config(vocab: int, hidden: int, layers: int, blocks: int):
    """A HawkConfig (README's ratios: recurrent = hidden, intermediate = 2 x hidden, conv 4)."""
    from hawk import HawkConfig

    return HawkConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        recurrent_size=hidden,
        num_blocks=blocks,
        conv_width=4,
    )


# ---------------------------------------------------------------------------------------------
# ritheshkumar95/pytorch-vqvae: stand-ins for vqvae.py / pixelcnn_prior.py's top-level imports
# ---------------------------------------------------------------------------------------------


class ScalarWriter:
    """tensorboardX.SummaryWriter stand-in: add_scalar records (tag, value, step)."""

    def __init__(self, *args, **kwargs):
        self.scalars: dict[str, list] = {}

    def add_scalar(self, tag, value, step):
        self.scalars.setdefault(tag, []).append((step, float(value)))

    def add_image(self, *args, **kwargs):
        pass


def install_vqvae_standins() -> None:
    """vqvae.py and pixelcnn_prior.py import torchvision (transforms, datasets, save_image,
    make_grid), the repository's datasets.MiniImagenet (PIL, torchvision) and tensorboardX at
    the top for main(); the drivers call their train() / test() only, with a ScalarWriter."""
    stub_module("torchvision")
    stub_module("torchvision.transforms", Compose=unavailable("transforms.Compose"))
    stub_module("torchvision.datasets", MNIST=unavailable("datasets.MNIST"))
    stub_module("torchvision.utils", save_image=unavailable("save_image"), make_grid=unavailable("make_grid"))
    stub_module("datasets", MiniImagenet=unavailable("MiniImagenet"))
    stub_module("tensorboardX", SummaryWriter=ScalarWriter)


def image_batches(x, y, batch: int, dev=None):
    """A list of (images, labels) batches (a DataLoader stand-in: len() and iteration)."""
    out = []
    for i in range(0, len(x) - batch + 1, batch):
        xb, yb = x[i : i + batch], y[i : i + batch]
        out.append((xb.to(dev), yb.to(dev)) if dev is not None else (xb, yb))
    return out


def toy_images_to_range(x):
    """Per-image min-max to [-1, 1] (vqvae.py's Normalize(0.5, 0.5) range, tanh decoder)."""
    lo = x.amin((1, 2, 3), keepdim=True)
    hi = x.amax((1, 2, 3), keepdim=True)
    return (x - lo) / (hi - lo).clamp_min(1e-6) * 2 - 1


def split_loaders(n_train: int, n_valid: int, batch: int, side: int, seed: int, to_range: bool):
    """kx's CIFAR-shaped toy classes split into train / valid lists of CPU batches (the upstream
    loops move each batch to the device themselves). Returns (x, train, valid)."""
    x, y = toy_cifar(n_train + n_valid, side=side, seed=seed)
    if to_range:
        x = toy_images_to_range(x)
    return x, image_batches(x[:n_train], y[:n_train], batch), image_batches(x[n_train:], y[n_train:], batch)


# ---------------------------------------------------------------------------------------------
# hyunwoongko/transformer: a toy translation task and train.py's loop
# ---------------------------------------------------------------------------------------------

PAD, SOS, EOS = 1, 2, 3  # torchtext's <pad> = 1 as in data.py's vocab order; 0 is <unk>


def seq2seq_pairs(n: int, vocab: int, min_len: int, max_len: int, seed: int = 0):
    """A toy 'translation': target = the source reversed with each token mapped by a fixed
    permutation, wrapped in <sos> / <eos>; sources carry <sos> / <eos> too (data.py's Field init
    / eos tokens). Pads both sides to their batch maxima with PAD. int64 (n, S) and (n, T)."""
    import torch

    rng = np.random.default_rng(seed)
    perm = rng.permutation(np.arange(4, vocab))
    table = np.arange(vocab)
    table[4:] = perm
    srcs, trgs = [], []
    for _ in range(n):
        length = int(rng.integers(min_len, max_len + 1))
        s = rng.integers(4, vocab, length)
        srcs.append([SOS, *s.tolist(), EOS])
        trgs.append([SOS, *table[s[::-1]].tolist(), EOS])
    s_len, t_len = max(map(len, srcs)), max(map(len, trgs))
    src = torch.full((n, s_len), PAD, dtype=torch.long)
    trg = torch.full((n, t_len), PAD, dtype=torch.long)
    for i, (s, t) in enumerate(zip(srcs, trgs)):
        src[i, : len(s)] = torch.tensor(s)
        trg[i, : len(t)] = torch.tensor(t)
    return src, trg


def seq2seq_batches(src, trg, batch: int, dev):
    """BucketIterator stand-in: batches (as SimpleNamespace(src, trg)) trimmed to their own
    longest sequence, so the sequence length changes from batch to batch."""
    out = []
    for i in range(0, len(src) - batch + 1, batch):
        s, t = src[i : i + batch], trg[i : i + batch]
        s = s[:, : int((s != PAD).sum(1).max())]
        t = t[:, : int((t != PAD).sum(1).max())]
        out.append(SimpleNamespace(src=s.to(dev), trg=t.to(dev)))
    return out


def seq2seq_train_epoch(model, batches, optimizer, criterion, clip: float):
    """train.py's train() without its per-step print: teacher forcing on trg[:, :-1], loss on
    trg[:, 1:] reshaped, clip_grad_norm_, step; returns the mean loss."""
    import torch

    model.train()
    total = 0.0
    for batch in batches:
        optimizer.zero_grad()
        output = model(batch.src, batch.trg[:, :-1])
        loss = criterion(
            output.contiguous().view(-1, output.shape[-1]), batch.trg[:, 1:].contiguous().view(-1)
        )
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item()
    return total / len(batches)


def transformer_args(vocab: int, d_model: int, n_layers: int, n_head: int, max_len: int, dev):
    """Transformer(...) keyword arguments in conf.py's style (ffn 4 x d_model, dropout 0.1)."""
    return dict(
        src_pad_idx=PAD,
        trg_pad_idx=PAD,
        trg_sos_idx=SOS,
        enc_voc_size=vocab,
        dec_voc_size=vocab,
        d_model=d_model,
        n_head=n_head,
        max_len=max_len,
        ffn_hidden=4 * d_model,
        n_layers=n_layers,
        drop_prob=0.1,
        device=dev,
    )


def train_toy_transformer(
    vocab, d_model, n_layers, n_head, max_len, n, n_extra, batch, epochs, lens, dev, seed
):
    """Build hyunwoongko's Transformer with train.py's init, torch.compile it and train it for
    `epochs` with train.py's loop on kx's toy translation pairs (Adam with conf.py's eps 5e-9 and
    weight decay 5e-4, CrossEntropyLoss(ignore_index=pad), clip 1.0). Returns (model, compiled
    model, per-epoch losses, src, trg) where src / trg hold n + n_extra pairs (the first n trained)."""
    import torch
    from models.model.transformer import Transformer

    src, trg = seq2seq_pairs(n + n_extra, vocab, lens[0], lens[1], seed=seed)
    train = seq2seq_batches(src[:n], trg[:n], batch, dev)
    model = Transformer(**transformer_args(vocab, d_model, n_layers, n_head, max_len, dev)).to(dev)
    model.apply(initialize_weights)
    cmodel = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=pick(3e-4, 1e-3), weight_decay=5e-4, eps=5e-9)
    crit = torch.nn.CrossEntropyLoss(ignore_index=PAD)
    losses = [seq2seq_train_epoch(cmodel, train, opt, crit, 1.0) for _ in range(epochs)]
    return model, cmodel, losses, src, trg


def initialize_weights(m):
    """train.py's initialize_weights (kaiming_uniform_ on every weight with dim > 1)."""
    import torch

    if hasattr(m, "weight") and m.weight.dim() > 1:
        torch.nn.init.kaiming_uniform_(m.weight.data)


# ---------------------------------------------------------------------------------------------
# akamaster/pytorch_resnet_cifar10: stand-ins for trainer.py's top-level imports and its args
# ---------------------------------------------------------------------------------------------


def install_resnet_trainer_standins() -> None:
    """trainer.py imports torchvision.transforms / torchvision.datasets at the top (for main()'s
    CIFAR10 loaders); the drivers call its train() / validate() with in-memory batches."""
    stub_module("torchvision")
    stub_module("torchvision.transforms", Compose=unavailable("transforms.Compose"))
    stub_module("torchvision.datasets", CIFAR10=unavailable("datasets.CIFAR10"))


def resnet_trainer_args(half: bool, print_freq: int):
    """The parsed-args attributes train() / validate() read (the `args` global main() sets)."""
    return SimpleNamespace(half=half, print_freq=print_freq)
