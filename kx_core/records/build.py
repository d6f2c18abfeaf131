"""What a compile made its results for: one `Build` value.

A result, a measurement, a profile and a compare are all about a build: the file's
content (its hash), the target, the GPU the capture stood for, the Triton version, the
options that change the code, and, for one kernel of it, that kernel and its config.
Panes compare the build of what they hold with the build on screen and say so when they
differ (`Build.difference`), rather than drawing an old file's figures on a new one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from kx_core.base.jsonable import Jsonable


def content_hash(source: bytes) -> str:
    """The short hash a Build names the file's content by (16 hex digits of sha256)."""
    return hashlib.sha256(source).hexdigest()[:16]


@dataclass(frozen=True)
class Build(Jsonable):
    """One build of a file. `kernel` and `config` are empty for the whole file's build;
    `options` holds what the request set that changes the code (sorted NAME=VALUE)."""

    file: str
    content: str  # content_hash of the bytes the compile read
    target: str  # its spec: 'cuda:90'
    gpu: str  # the GPU the capture stood for: 'NVIDIA H200'
    triton: str  # the Triton version that compiled it
    options: tuple[str, ...] = ()
    kernel: str = ""  # a kernel's display name, for the build of one kernel
    config: str = ""  # that kernel's autotune config, as text

    def of_kernel(self, kernel) -> Build:
        """The build of one compiled kernel of this file's build."""
        config = str(kernel.config.to_json()) if getattr(kernel, "config", None) else ""
        return replace(self, kernel=kernel.display_name, config=config)

    @property
    def whole(self) -> Build:
        """The file's build this kernel's build is part of."""
        return replace(self, kernel="", config="")

    def difference(self, other: Build | None) -> str:
        """What differs from `other`, in words ('' when they are the same build): what a
        pane says when it holds results of `other` while this build is on screen."""
        if other is None:
            return "no build"
        if other == self:
            return ""
        parts = []
        for name, words in _FIELDS:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine != theirs:
                parts.append(words.format(mine=_short(mine), theirs=_short(theirs)))
        return "; ".join(parts)

    def label(self) -> str:
        """A short name for the build: 'matmul.py @3f2a9c01 for cuda:90 (triton 3.8.0)'."""
        name = self.file.rsplit("/", 1)[-1]
        what = f" {self.kernel}" if self.kernel else ""
        return f"{name}{what} @{self.content[:8]} for {self.target} (triton {self.triton})"


def _short(value) -> str:
    return ", ".join(value) or "none" if isinstance(value, tuple) else str(value) or "none"


# Each field a build can differ in, with the words that say so.
_FIELDS = (
    ("file", "another file ({theirs})"),
    ("content", "the file changed since (was @{theirs:.8}, now @{mine:.8})"),
    ("target", "another target ({theirs}, now {mine})"),
    ("gpu", "another GPU ({theirs}, now {mine})"),
    ("triton", "another Triton ({theirs}, now {mine})"),
    ("options", "other options ({theirs}, now {mine})"),
    ("kernel", "another kernel ({theirs}, now {mine})"),
    ("config", "another config ({theirs}, now {mine})"),
)
