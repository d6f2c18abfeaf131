"""A profile's heat as a code view draws it: per shown line, its share of the stage's
hottest line (the bar's length) and its hover text (kx_core.ir.hot_lines.heat_tip)."""

from __future__ import annotations

from kx_core.ir.hot_lines import heat_tip


def view_heat(lines: dict, total: int, shown_line=None) -> dict[int, tuple[float, str]]:
    """lines: full-text line -> LineHeat; shown_line maps a full-text line to the view's
    numbering (display filters); lines sharing a shown line keep the hotter."""
    hottest = max((h.samples for h in lines.values()), default=0)
    out: dict[int, tuple[float, str]] = {}
    for line, heat in lines.items():
        shown = shown_line(line) if shown_line else line
        if shown is None:  # a line the view no longer has (edited since the build)
            continue
        if hottest and (shown not in out or out[shown][0] < heat.samples / hottest):
            out[shown] = (heat.samples / hottest, heat_tip(heat, total))
    return out
