"""Before Qt starts: will its platform plugin load? Qt aborts the process when it cannot
load one (a fresh Linux desktop without libxcb-cursor0: "Could not load the Qt platform
plugin "xcb" ... Aborted"), with no word of which system package is missing. kx checks
the libraries PySide6's xcb plugin links against first, and names the packages.

    problem = platform_problem()   # None, or the message to print (exit 2)
"""

from __future__ import annotations

import ctypes
import os
import sys

# The system libraries PySide6 6.x's xcb plugin and libQt6XcbQpa link against (their ELF
# NEEDED entries, less Qt's own and the C/C++ runtimes), with each one's Debian/Ubuntu
# package.
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
}
# what `--screenshot` and the tests use instead of a display
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


def xcb_plugin() -> str | None:
    """The path of the xcb platform plugin of the PySide6 installed (None: not found)."""
    try:
        import PySide6
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(PySide6.__file__), "Qt", "plugins", "platforms", "libqxcb.so")
    return path if os.path.exists(path) else None


def load_error(path: str) -> str | None:
    """None when the library at `path` loads with all it links against; else the loader's
    message (it names the first library it could not find)."""
    try:
        ctypes.CDLL(path)
    except OSError as e:
        return str(e)
    return None


def missing_libraries(names: dict[str, str] = XCB_LIBRARIES) -> list[str]:
    """The libraries of `names` the dynamic loader cannot find."""
    missing = []
    for lib in names:
        try:
            ctypes.CDLL(lib)
        except OSError:
            missing.append(lib)
    return missing


def platform_problem(environ: dict[str, str] | None = None, platform: str | None = None) -> str | None:
    """None when Qt's platform plugin should load; else what to tell the user. Only Linux
    with X11 (xcb) is checked: Wayland, macOS, Windows and the headless platforms pass."""
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0]
    if not platform.startswith("linux") or chosen in HEADLESS_PLATFORMS or chosen.startswith("wayland"):
        return None
    if not chosen and env.get("WAYLAND_DISPLAY"):
        return None
    if not env.get("DISPLAY"):
        return (
            "kx: no display to open the window on (DISPLAY is not set). Run it on a desktop, or "
            "write a picture without one: QT_QPA_PLATFORM=offscreen python main.py FILE --screenshot out.png"
        )
    plugin = xcb_plugin()
    failed = load_error(plugin) if plugin else None
    if plugin and failed is None:
        return None  # the plugin and everything it links against load
    missing = missing_libraries()
    named = failed.split(":")[0].strip() if failed else ""
    if named and named not in missing:
        missing.insert(0, named)
    if not missing:
        return None if not failed else f"kx: Qt's X11 platform plugin cannot load: {failed}"
    packages = " ".join(XCB_LIBRARIES.get(lib, lib) for lib in missing)
    return (
        f"kx: Qt's X11 platform plugin (xcb) needs libraries this system does not have: {', '.join(missing)}.\n"
        f"On Debian or Ubuntu: sudo apt install {packages}\n"
        "(other distributions name them alike: see README, 'System packages')"
    )
