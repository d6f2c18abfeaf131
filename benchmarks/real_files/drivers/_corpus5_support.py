"""Import helpers for fresh corpus 5's drivers (kx's own code, no upstream code).

Every stand-in here is used unconditionally (whether or not the real package is installed),
so a driver runs the same on any machine: no download, no hub, no installed-version drift.
Built on _corpus_support's bare_package / stub_module / stub_any.
"""

from __future__ import annotations

import os
import sys

import _corpus_support
from _corpus_support import bare_package, find_on_path, stub_any, stub_module


class ByteBPE:
    """A tiktoken Encoding stand-in (tiktoken.get_encoding downloads its BPE file): UTF-8 bytes
    as ids 0..255, GPT-2's <|endoftext|> as 50256; encode / decode / n_vocab as tiktoken's."""

    name = "gpt2"
    eot_token = 50256
    n_vocab = 50257

    def encode(self, text, allowed_special=(), disallowed_special=(), **kwargs):
        out = []
        for i, part in enumerate(str(text).split("<|endoftext|>")):
            if i:
                out.append(self.eot_token)
            out.extend(part.encode("utf-8"))
        return out

    def encode_ordinary(self, text):
        return list(str(text).encode("utf-8"))

    def decode(self, ids, errors="replace"):
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        return bytes(i for i in ids if i < 256).decode("utf-8", errors)


def tiktoken_standin() -> None:
    """`import tiktoken; tiktoken.get_encoding("gpt2")` without the download."""
    stub_module("tiktoken", get_encoding=lambda name: ByteBPE(), Encoding=ByteBPE)


def scattermoe_package() -> None:
    """`import scattermoe.mlp` without scattermoe/__init__.py, which imports utils.replace_moe
    (it patches transformers' GPT-OSS / Granite MoE classes when transformers imports). The
    kernels, parallel_experts and mlp modules run unchanged."""
    root = find_on_path("scattermoe")
    bare_package("scattermoe", root)


def xlstm_large() -> None:
    """`import xlstm.xlstm_large` without xlstm/__init__.py (it imports the sLSTM blocks, whose
    CUDA backend is compiled on use, and the small-model stack). xlstm_large imports
    mlstm_kernels.torch.backend_module (NX-AI/mlstm_kernels, on sys.path as its own tree)."""
    root = find_on_path("xlstm")
    bare_package("xlstm", root)


def write_text(path: str, n_words: int, seed: int = 0) -> str:
    """A deterministic English-like text file (a stand-in for a downloaded book or data set)."""
    import random

    rng = random.Random(seed)
    words = (
        "the of and to in a is that for it as was with be by on not he this are or his from at "
        "which but have an they you were her she there been one all we their has would when what "
        "time very about more some into could its only other over such then our any these two may "
        "first new like well man after made now way little good great old see people long world"
    ).split()
    sentences = []
    for _ in range(n_words // 12):
        s = " ".join(rng.choice(words) for _ in range(rng.randint(6, 18)))
        sentences.append(s[0].upper() + s[1:] + rng.choice([".", ".", ",", "?", "!"]))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(" ".join(sentences[i : i + 6]) for i in range(0, len(sentences), 6)))
    return path


__all__ = [
    "ByteBPE",
    "_corpus_support",
    "bare_package",
    "find_on_path",
    "scattermoe_package",
    "stub_any",
    "stub_module",
    "sys",
    "tiktoken_standin",
    "write_text",
    "xlstm_large",
]
