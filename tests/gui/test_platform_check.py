"""Before Qt starts, kx names the system packages its X11 plugin lacks (Qt aborts)."""

from __future__ import annotations

from kx_gui.platform_check import (
    XCB_LIBRARIES,
    load_error,
    missing_libraries,
    platform_problem,
    xcb_plugin,
)


def test_headless_wayland_and_other_systems_pass():
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert platform_problem({"QT_QPA_PLATFORM": "wayland"}) is None
    assert platform_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert platform_problem({}, platform="darwin") is None


def test_no_display_says_how_to_run_without_one():
    problem = platform_problem({})
    assert problem and "DISPLAY" in problem and "QT_QPA_PLATFORM=offscreen" in problem


def test_a_missing_library_is_named_with_its_package():
    assert missing_libraries({"libkx-not-a-library.so.9": "kx-none"}) == ["libkx-not-a-library.so.9"]
    assert missing_libraries({"libc.so.6": "libc6"}) == []


def test_the_verdict_is_the_dynamic_loaders():
    """The oracle: loading PySide6's xcb plugin. When it loads, nothing is reported; when
    it does not, the library the loader names is in the message with its package."""
    plugin = xcb_plugin()
    assert plugin is not None
    failed = load_error(plugin)
    problem = platform_problem({"DISPLAY": ":0"})
    if failed is None:
        assert problem is None
    else:
        lib = failed.split(":")[0].strip()
        assert lib in problem and XCB_LIBRARIES.get(lib, lib) in problem and "apt install" in problem
