"""Import helpers and stand-ins for fresh corpus 11's drivers (kx's own code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`: one copy); the
stand-ins here are this corpus's own. Each stand-in is used whether or not the real package is
installed, so a driver runs the same on any machine: no download, no hub, no installed-version
drift. Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

from _corpus9_support import (
    bare_package,
    find_on_path,
    passthrough_module,
    pick,
    quiet_warnings,
    rel_err,
    small,
    stub_module,
    unavailable,
)


def install_tiktoken_fire_standin() -> None:
    """karpathy/nano-llama31's llama31.py imports `fire` (its command line) and its tokenizer.py
    imports tiktoken (the Llama 3 BPE, read from a downloaded tokenizer.model): neither is on the
    run machines and the drivers use neither (token ids are random, no text). Stand-ins: a
    passthrough `fire` and a tiktoken whose entry points raise if called."""
    passthrough_module("fire")
    stub_module("tiktoken", Encoding=unavailable("tiktoken.Encoding"))
    stub_module("tiktoken.load", load_tiktoken_bpe=unavailable("tiktoken.load.load_tiktoken_bpe"))


class IdTokenizer:
    """What nano-llama31's Llama.generate reads of its tokenizer (pad_id, stop_tokens) for a model
    fed random token ids: a stand-in (kx's code) with the Llama 3 special ids."""

    def __init__(self, vocab_size: int):
        self.n_words = vocab_size
        self.pad_id = -1
        # <|end_of_text|>, <|eot_id|> in Llama 3's numbering, folded into a small vocabulary
        self.stop_tokens = {128001 % vocab_size, 128009 % vocab_size}


def install_beartype_standin() -> None:
    """lucidrains/ring-attention-pytorch decorates its entry points with beartype (not on the run
    machines): a stand-in whose decorator returns the function unchanged."""
    stub_module("beartype", beartype=lambda f=None, **k: f if f is not None else (lambda g: g))
    stub_module("beartype.typing")


def install_triton_nightly_version() -> None:
    """ring-attention-pytorch's triton_flash_attn.py reads `importlib.metadata.version(
    'triton-nightly')` at import and exit()s when that distribution is absent (the run machines
    have the release `triton` wheel, not `triton-nightly`). Stand-in: a version lookup answering
    for "triton-nightly" with the installed triton's version and deferring to importlib.metadata
    for every other name."""
    import importlib.metadata as md

    import triton

    real_version = getattr(md.version, "_kx_real", md.version)

    def version(name):
        if name == "triton-nightly":
            return triton.__version__
        return real_version(name)

    version._kx_real = real_version
    md.version = version


def install_pil_standin() -> None:
    """facebookresearch/dino's utils.py imports PIL's ImageFilter / ImageOps for its data
    augmentations (not used here: the drivers feed random tensors). Stand-in modules whose
    attributes raise if called, so the import does not depend on Pillow being installed."""
    stub_module("PIL", ImageFilter=unavailable("PIL.ImageFilter"), ImageOps=unavailable("PIL.ImageOps"))


__all__ = [
    "IdTokenizer",
    "bare_package",
    "find_on_path",
    "install_beartype_standin",
    "install_pil_standin",
    "install_tiktoken_fire_standin",
    "install_triton_nightly_version",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "rel_err",
    "small",
    "stub_module",
    "unavailable",
]
