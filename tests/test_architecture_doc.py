"""docs/architecture.md stays true: every kx module or package it names exists."""

from __future__ import annotations

import importlib.util
import re

from kx_testing import ROOT


def test_every_module_the_architecture_map_names_exists():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    # Example: "`kx_core.compile.artifacts.derived`" or "`kx_gui.panes.base.Pane`" (a class: its module)
    names = set(re.findall(r"`((?:kx_core|kx_gui)(?:\.\w+)*)`", text))
    assert len(names) > 40
    missing = []
    for name in sorted(names):
        parts = name.split(".")
        # the longest prefix that is a module; what follows must be an attribute of it
        for cut in range(1, len(parts) + 1):  # down from the package, while modules exist
            try:
                found = importlib.util.find_spec(".".join(parts[:cut])) is not None
            except ModuleNotFoundError:  # a name below a module (not a package)
                found = False
            if not found:
                cut -= 1
                break
        module = ".".join(parts[:cut])
        if not module:
            missing.append(name)
            continue
        rest = parts[cut:]
        if rest:
            obj = importlib.import_module(module)
            for attr in rest:
                obj = getattr(obj, attr, None)
            if obj is None:
                missing.append(name)
    assert not missing, missing
