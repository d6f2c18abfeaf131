"""docs/architecture.md and docs/adding_a_language.md stay true: every kx module or
package they name exists."""

from __future__ import annotations

import importlib.util
import re

import pytest

from kx_testing import ROOT


@pytest.mark.parametrize("page,least", [("architecture.md", 40), ("adding_a_language.md", 8)])
def test_every_module_the_page_names_exists(page, least):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    # Example: "`kx_core.compile.artifacts.derived`" or "`kx_gui.panes.base.Pane`" (a class: its module)
    names = set(re.findall(r"`((?:kx_core|kx_gui)(?:\.\w+)*)`", text))
    assert len(names) >= least
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
