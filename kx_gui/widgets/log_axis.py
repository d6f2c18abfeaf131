"""A log-scale axis whose labels do not run together.

pyqtgraph labels every sub-decade tick (2·10², 3·10², ... 9·10²) when an axis spans
about a decade, and those labels overlap ("5·10²6·10⁷7·10"). This axis keeps the
labels at 1, 2 and 5 times a power of ten once more than six ticks would be labelled;
the ticks themselves all stay."""

from __future__ import annotations

import math

import pyqtgraph as pg

KEPT_MANTISSAS = (1, 2, 5)
MAX_LABELS = 6


def kept(value: float) -> bool:
    """Whether a tick at log10 value `value` keeps its label (1, 2 or 5 x 10^n)."""
    mantissa = 10 ** (value - math.floor(value + 1e-9))
    return any(abs(mantissa - m) < 1e-6 * m for m in KEPT_MANTISSAS)


class LogAxis(pg.AxisItem):
    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        strings = super().tickStrings(values, scale, spacing)
        if not self.logMode or len(values) <= MAX_LABELS:
            return strings
        return [s if kept(v) else "" for v, s in zip(values, strings)]
