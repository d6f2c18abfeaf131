"""The Triton module Helion generated for a captured kernel: shown as a stage of its own
("Triton (Helion)"), and the map from its lines to the Helion source lines its
`# src[file.py:N]` comments name, so every stage below links back to the Helion source
(kx_core.ir.helion_src reads the comments)."""

from __future__ import annotations

from collections import Counter

from kx_core.ir.helion_src import is_helion_generated, line_map, src_lines
from kx_core.records.results import LineMap


def helion_generated(path: str | None) -> tuple[str, dict[str, LineMap]] | None:
    """(the module's text, {its path: the lines of the Helion file it came from}) when
    `path` is a module Helion generated; None otherwise."""
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    if not is_helion_generated(text):
        return None
    # the file most of its lines came from: the kernel's own (helpers may live elsewhere)
    src = src_lines(text)
    names = Counter(name for locs in src.values() for name, _ in locs)
    if not names:
        return None
    name = names.most_common(1)[0][0]
    return text, {path: LineMap(name, line_map(src, name))}
