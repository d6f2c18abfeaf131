"""What the window offers besides its docks, one module a feature: each has an
`install(window)` that makes the feature's object, puts its actions in the window's menu
places (`kx_gui.features.menus`) and connects the signals it follows, so the window names
none of them (Spyder's plugins register their own actions the same way).

The window keeps the installed features in `window.features` by module name
(`window.features.bundles.export_bundle(path)`); a feature reaches another through it,
never by importing it (contract "features never import features").
"""

from __future__ import annotations

from types import SimpleNamespace

from kx_gui.features import (
    build_status,
    bundles,
    display_filters,
    examples,
    files,
    pane_keys,
    recovery,
    repro,
    targets,
    trust,
    versions,
    window_size,
    workspaces,
)

# installed in this order; where each one's actions show is its menu places', not this
FEATURES = (
    files,
    trust,
    examples,
    bundles,
    repro,
    targets,
    versions,
    pane_keys,
    workspaces,
    display_filters,
    window_size,
    recovery,
    build_status,
)


def install_all(window) -> SimpleNamespace:
    """Install every feature on `window`; returns them by module name."""
    installed = SimpleNamespace()
    window.features = installed  # a feature may reach those installed before it
    for module in FEATURES:
        setattr(installed, module.__name__.rsplit(".", 1)[1], module.install(window))
    return installed
