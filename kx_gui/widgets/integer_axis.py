"""An axis of counts (iterations, measurements) whose ticks are whole numbers.

pyqtgraph picks tick spacings of 0.5 or 0.2 when a count spans a few units, and the
E-graph's growth plot labelled iterations 0.5, 1.5 and 2.5: iterations it never ran."""

from __future__ import annotations

import math

import pyqtgraph as pg


class IntegerAxis(pg.AxisItem):
    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        levels = [
            (spacing, [v for v in values if float(v).is_integer()])
            for spacing, values in super().tickValues(minVal, maxVal, size)
            if spacing >= 1
        ]
        if not any(values for _, values in levels) and maxVal >= minVal:
            whole = list(range(math.ceil(minVal), math.floor(maxVal) + 1))
            levels = [(1, whole)] if whole else []
        return levels
