"""Colours that tell many things apart (lanes, warps, configs), for every pane that plots."""

from __future__ import annotations

import colorsys

import numpy as np


def distinct_colors(n: int) -> np.ndarray:
    """n clearly different colours (RGB, 0-255): hues spread round the wheel, lightness
    alternating so neighbours differ twice over. 32 lanes get 32 distinct colours."""
    out = []
    for i in range(n):
        h = (i * 0.618033988749895) % 1.0  # golden-ratio steps keep consecutive hues apart
        lightness = (0.45, 0.65, 0.55)[i % 3]
        r, g, b = colorsys.hls_to_rgb(h, lightness, 0.75)
        out.append((int(r * 255), int(g * 255), int(b * 255)))
    return np.array(out, dtype=np.uint8)
