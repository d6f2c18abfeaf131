"""Import helpers and stand-ins for fresh corpus 17's drivers (kx's code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`). Each stand-in here is
used whether or not the real package is installed, so a driver runs the same on any machine (the
GPU machine has torch, triton and numpy only). Upstream sources are found on sys.path (the
manifest's "pythonpath" puts the `.realfiles/...` folders there). `small()` is true under
KX_CORPUS_SMALL=1 (toy sizes for a CPU check); by default the drivers run their real sizes.
"""

from __future__ import annotations

import dataclasses

import torch
from _corpus9_support import bare_package, pick, rel_err, small, stub_module, unavailable  # noqa: F401
from _corpus16_support import _einops_einsum


class _Serializable:
    """simple_parsing's Serializable as the upstream dataclasses use it: a base class whose
    from_dict builds the dataclass (nested dataclass fields from dicts too)."""

    @classmethod
    def from_dict(cls, d):
        kw = {}
        for f in dataclasses.fields(cls):
            if f.name in d:
                v = d[f.name]
                if isinstance(v, dict) and isinstance(f.type, type) and dataclasses.is_dataclass(f.type):
                    v = f.type.from_dict(v)
                kw[f.name] = v
        return cls(**kw)

    def to_dict(self):
        return dataclasses.asdict(self)


def install_simple_parsing_standin() -> None:
    """mistral-src's one-file references and sparsify's config.py derive their argument
    dataclasses from simple_parsing's Serializable (sparsify also imports list_field)."""
    stub_module(
        "simple_parsing",
        Serializable=_Serializable,
        list_field=lambda *d, **k: dataclasses.field(default_factory=lambda: list(d)),
    )
    stub_module("simple_parsing.helpers", Serializable=_Serializable)


def install_mistral_standins() -> None:
    """mistral-src's one_file_ref.py / moe_one_file_ref.py import fire (their CLI), safetensors
    (checkpoint loading in from_folder, not used: the drivers build random-weight models) and
    mistral_common's tokenizer classes (type annotations and load_tokenizer only)."""
    install_simple_parsing_standin()
    stub_module("fire", Fire=unavailable("fire.Fire"))
    stub_module("safetensors", safe_open=unavailable("safetensors.safe_open"))
    stub_module("safetensors.torch", load_file=unavailable("safetensors.torch.load_file"))
    stub_module("mistral_common")
    stub_module("mistral_common.tokens")
    stub_module("mistral_common.tokens.tokenizers")
    stub_module("mistral_common.tokens.tokenizers.base", Tokenizer=WordTokenizerStandin)
    stub_module("mistral_common.tokens.tokenizers.mistral", MistralTokenizer=unavailable("MistralTokenizer"))


class WordTokenizerStandin:
    """What mistral-src's generate() reads from its tokenizer: encode(text, bos, eos) -> ids,
    _model.pad_id() and decode(ids). Words become deterministic ids below `vocab_size` (BOS 1,
    pad -1 as sentencepiece's Mistral model has it); decode writes ids back as text."""

    class _Model:
        def pad_id(self):
            return -1

    def __init__(self, vocab_size: int = 32000):
        self.vocab_size = vocab_size
        self._model = self._Model()

    def encode(self, text: str, bos: bool = True, eos: bool = False):
        ids = [
            3 + sum(ord(c) * 131**i for i, c in enumerate(w)) % (self.vocab_size - 3) for w in text.split()
        ]
        return ([1] if bos else []) + ids + ([2] if eos else [])

    def decode(self, ids):
        return " ".join(f"<{i}>" for i in ids)


def install_sparsify_standins() -> None:
    """EleutherAI/sparsify's sparse_coder.py / utils.py / config.py import einops (einsum in
    remove_gradient_parallel_to_decoder_directions), huggingface_hub, natsort, safetensors and
    accelerate / transformers (hub and checkpoint loading, the trainer's model hooks), none of
    which the drivers call; the package's __init__ (trainer, datasets) is not run."""
    install_simple_parsing_standin()

    def _unused(name):
        return unavailable(f"einops.{name}")

    stub_module("einops", einsum=_einops_einsum, rearrange=_unused("rearrange"), repeat=_unused("repeat"))
    stub_module("huggingface_hub", snapshot_download=unavailable("huggingface_hub.snapshot_download"))
    stub_module("natsort", natsorted=sorted)
    stub_module("safetensors", safe_open=unavailable("safetensors.safe_open"))
    stub_module(
        "safetensors.torch",
        load_model=unavailable("safetensors.torch.load_model"),
        save_model=unavailable("safetensors.torch.save_model"),
    )
    stub_module("accelerate")
    stub_module("accelerate.utils", send_to_device=lambda x, device, **k: x)
    stub_module("transformers", PreTrainedModel=torch.nn.Module)
    bare_package("sparsify")


def install_scipy_standin() -> None:
    """torchdiffeq's scipy_wrapper.py imports scipy.integrate.solve_ivp at the top (its
    'scipy_solver' method, which no driver picks)."""
    stub_module("scipy")
    stub_module("scipy.integrate", solve_ivp=unavailable("scipy.integrate.solve_ivp"))


def random_csc_graph(n_src: int, n_dst: int, avg_deg: int, device, seed: int = 0, max_deg: int | None = None):
    """A random bipartite graph (src -> dst) with edges sorted by destination, and the CSC /
    reverse metadata anemoi's Triton GraphTransformer kernels take (what anemoi's
    edge_index_to_csc builds with torch_geometric; written here with torch, kx's code):
    (row, colptr), (rowptr, edge_id_per_src, edge_dst), plus edge_index (2, M)."""
    g = torch.Generator().manual_seed(seed)
    deg = torch.randint(0, 2 * avg_deg + 1, (n_dst,), generator=g)
    if max_deg is not None:
        deg = deg.clamp(max=max_deg)
    deg[0] = 0  # one destination without neighbours (the kernels' empty branch)
    dst = torch.repeat_interleave(torch.arange(n_dst), deg)
    src = torch.randint(0, n_src, (int(deg.sum()),), generator=g)
    colptr = torch.zeros(n_dst + 1, dtype=torch.long)
    colptr[1:] = torch.cumsum(deg, 0)
    rowptr = torch.zeros(n_src + 1, dtype=torch.long)
    rowptr[1:] = torch.cumsum(torch.bincount(src, minlength=n_src), 0)
    edge_ids = torch.argsort(src, stable=True)
    to = lambda t: t.to(device)  # noqa: E731
    csc = (to(src), to(colptr))
    reverse = (to(rowptr), to(edge_ids), to(dst))
    return csc, reverse, to(torch.stack([src, dst]))


def graph_attention_reference(q, k, v, e, edge_index):
    """anemoi's GraphTransformer attention written with scatter ops in float32 (kx's code): for
    each destination, softmax over its incoming edges of q . (k_src + e) / sqrt(C), times
    (v_src + e); zero for destinations without edges. q (N_dst, H, C), k / v (N_src, H, C),
    e (M, H, C) in edge_index order."""
    src, dst = edge_index
    q32, k32, v32, e32 = (t.float() for t in (q, k, v, e))
    n_dst, h, c = q.shape
    ke = k32[src] + e32
    s = (q32[dst] * ke).sum(-1) / c**0.5  # (M, H)
    smax = torch.full((n_dst, h), float("-inf"), device=q.device).scatter_reduce(
        0, dst[:, None].expand(-1, h), s, "amax"
    )
    p = torch.exp(s - smax[dst])
    denom = torch.zeros(n_dst, h, device=q.device).index_add(0, dst, p)
    out = torch.zeros(n_dst, h, c, device=q.device).index_add(0, dst, p[..., None] * (v32[src] + e32))
    return out / denom.clamp(min=1e-30)[..., None]


def newton_schulz_reference(G, steps: int = 5):
    """Keller Jordan's quintic Newton-Schulz iteration (the one flash-muon adapts) with plain
    matmuls in bfloat16 (kx's code)."""
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()
    if G.size(-2) > G.size(-1):
        X = X.mT
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(-2) > G.size(-1):
        X = X.mT
    return X


def random_graph_dense(n: int, avg_deg: int, device, seed: int = 0):
    """A random undirected graph with self loops as pyGAT's load_data returns it for Cora: a dense
    row-normalised (n, n) adjacency (kx's code, no dataset on the GPU machine)."""
    g = torch.Generator().manual_seed(seed)
    m = n * avg_deg // 2
    i, j = torch.randint(0, n, (m,), generator=g), torch.randint(0, n, (m,), generator=g)
    adj = torch.zeros(n, n)
    adj[i, j] = 1
    adj = ((adj + adj.T) > 0).float() + torch.eye(n)
    adj = (adj > 0).float()
    adj = adj / adj.sum(1, keepdim=True)
    return adj.to(device)


def ddpm_config(image_size: int, ch: int, ch_mult, num_res_blocks: int, attn_resolutions):
    """The namespace dpm-solver's examples/ddpm_and_guided-diffusion/models/diffusion.py Model
    reads (config.model.*, config.data.*, config.diffusion.*), as its configs/cifar10.yml sets
    it (kx's code; the YAML loader is not on the GPU machine)."""
    from types import SimpleNamespace as NS

    return NS(
        model=NS(
            type="simple",
            in_channels=3,
            out_ch=3,
            ch=ch,
            ch_mult=list(ch_mult),
            num_res_blocks=num_res_blocks,
            attn_resolutions=list(attn_resolutions),
            dropout=0.1,
            var_type="fixedlarge",
            ema_rate=0.9999,
            ema=True,
            resamp_with_conv=True,
        ),
        data=NS(image_size=image_size, channels=3),
        diffusion=NS(beta_schedule="linear", beta_start=0.0001, beta_end=0.02, num_diffusion_timesteps=1000),
    )
