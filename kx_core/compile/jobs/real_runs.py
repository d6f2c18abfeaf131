"""Comparing a capture with what a real GPU run compiled.

scripts/record_real_runs.py records, on a GPU machine, every kernel a file's real run
compiled (kernel name, constexprs, signature, warps, stages) or failed to compile. These
functions put kx's capture of the same file into the same terms, so a test or a
measurement can say whether kx shows everything the real run compiled.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kx_core.records.results import CompiledKernel


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def recorded_key(c: dict) -> tuple:
    """The identity of one compile in a real run's record: kernel, constexprs (integer
    arguments specialised to 1 among them), signature, warps, stages, maxnreg."""
    return (
        c["kernel"],
        _canon(c.get("constexprs") or {}),
        _canon(c.get("signature") or {}),
        c.get("num_warps"),
        c.get("num_stages"),
        c.get("maxnreg"),
    )


def captured_key(k: CompiledKernel) -> tuple | None:
    """The same identity for a kernel kx compiled (compiled or pruned), else None."""
    if k.specialization is None or k.metadata is None:
        return None
    spec = k.specialization
    return (
        k.name,
        _canon(spec.constexprs),
        _canon(spec.signature),
        k.metadata.num_warps,
        k.metadata.num_stages,
        k.metadata.extra.get("maxnreg"),
    )


@dataclass(frozen=True)
class Comparison:
    """Distinct compiles of the real run and of kx's capture, and the differences."""

    real: frozenset
    captured: frozenset
    real_failures: Counter  # kernel name -> compiles that raised in the real run
    captured_failures: Counter

    @property
    def missing(self) -> frozenset:
        return self.real - self.captured

    @property
    def extra(self) -> frozenset:
        return self.captured - self.real

    @property
    def complete(self) -> bool:
        """kx shows everything the real run compiled (and failed to compile)."""
        return not self.missing and all(self.captured_failures[k] >= n for k, n in self.real_failures.items())


def _compiled(k: CompiledKernel) -> bool:
    """Whether Triton's compile of `k` finished: compiled, pruned, or failed only at loading
    (OutOfResources: more shared memory than the GPU has; kx's record keeps its metadata),
    as the real run's record has it compiled before its launch raised."""
    return k.status in ("compiled", "pruned") or (k.status == "failed" and k.metadata is not None)


def compare(record: dict, kernels: list[CompiledKernel]) -> Comparison:
    real = frozenset(recorded_key(c) for c in record["compiles"] if c["status"] == "compiled")
    captured = frozenset(key for k in kernels if _compiled(k) and (key := captured_key(k)))
    # a real run retries a failing specialization on every launch: count distinct ones
    distinct_failed = {recorded_key(c) for c in record["compiles"] if c["status"] != "compiled"}
    real_failures = Counter(key[0] for key in distinct_failed)
    captured_failures = Counter(k.name for k in kernels if k.status == "failed" and not _compiled(k))
    return Comparison(real, captured, real_failures, captured_failures)


@dataclass(frozen=True)
class Identity:
    """For the compiles both runs made (by key): how many have the real run's Triton hash
    and how many its PTX byte for byte (of those the real record has a hash / PTX for)."""

    matched: int
    with_hash: int
    same_hash: int
    with_ptx: int
    same_ptx: int
    differing: tuple[tuple, ...] = ()  # (key, what differs) of the first few


def ptx_sha256(k: CompiledKernel) -> str | None:
    ptx = k.stages.get("ptx")
    return hashlib.sha256(ptx.encode()).hexdigest() if ptx else None


def identity(record: dict, kernels: list[CompiledKernel]) -> Identity:
    """Compare the real run's compiles with kx's of the same key. One key can hold several
    compiles (the key leaves out divisibility: a seed of 0 and one of 1234 are two
    specializations), so each key's hashes and PTX digests are compared as sets."""
    real: dict[tuple, list[dict]] = {}
    for c in record["compiles"]:
        if c["status"] == "compiled":
            real.setdefault(recorded_key(c), []).append(c)
    ours: dict[tuple, list[CompiledKernel]] = {}
    for k in kernels:
        if _compiled(k) and (key := captured_key(k)) is not None:
            ours.setdefault(key, []).append(k)
    matched = 0
    with_same = {"hash": [0, 0], "ptx": [0, 0]}  # [records with it, of those the same as kx's]
    differing = []
    for key, compiles in real.items():
        mine = ours.get(key)
        if not mine:
            continue
        ours_of = {
            "hash": {k.metadata.hash for k in mine if k.metadata},
            "ptx_sha256": {ptx_sha256(k) for k in mine},
        }
        for c in {c.get("hash") or id(c): c for c in compiles}.values():  # distinct compiles
            matched += 1
            for field, counts in (("hash", with_same["hash"]), ("ptx_sha256", with_same["ptx"])):
                if c.get(field):
                    counts[0] += 1
                    if c[field] in ours_of[field]:
                        counts[1] += 1
                    elif len(differing) < 5:
                        differing.append((key, field))
    (with_hash, same_hash), (with_ptx, same_ptx) = with_same["hash"], with_same["ptx"]
    return Identity(matched, with_hash, same_hash, with_ptx, same_ptx, tuple(differing))
