"""Where a launch under way was called, as its record shows it."""

from __future__ import annotations

import sys
from typing import Any

from kx_core.compile.capturing import capture_state
from kx_core.compile.capturing.device.placeholders import LEDGER
from kx_core.records.results import LaunchSite


def launch_site(grid: Any) -> LaunchSite:
    """Where the launch under way was called: the innermost frame outside torch, Triton
    and kx, and the compiled file's own line on the stack (a library's wrapper calls the
    kernel; the file calls the wrapper)."""
    file, line = LEDGER.user_frame()
    own, frame = None, sys._getframe(1)
    user_file = capture_state.STATE.user_file
    while frame is not None:
        if frame.f_code.co_filename == user_file:
            own = frame.f_lineno
            break
        frame = frame.f_back
    grid = tuple(int(g) for g in grid) if grid else (0, 0, 0)
    return LaunchSite(grid, file, line, 1, own)
