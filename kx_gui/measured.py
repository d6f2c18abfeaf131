"""Measured times as the app holds them: seconds by kernel display name, and the build
they were measured on (a run of the file as it was on disk when the run started)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kx_core.records.build import Build


@dataclass(frozen=True)
class Measured:
    """What the last timing run measured; empty before any run."""

    seconds: dict[str, float] = field(default_factory=dict)
    build: Build | None = None

    def __bool__(self) -> bool:
        return bool(self.seconds)
