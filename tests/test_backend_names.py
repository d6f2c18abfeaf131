"""What a backend does is read from its descriptor (kx_core.records.backends), never from
its name: no module outside the descriptors tests a target's backend by name (issue 53)."""

from __future__ import annotations

import re

from kx_testing import ROOT

# Each a spelling of "is this target's backend X": the descriptor's fields say what the
# code asks instead (Backend.gpu, .runs_file, .instruction_mix, .binary; Language.backends).
NAME_TESTS = re.compile(
    r"backend\s*(?:==|!=)"  # Example: `target.backend == "cpu"`, `backend != 'cuda'`
    r"|\.backend\s+(?:not\s+)?in\s*[(\[{]"  # Example: `target.backend in ("cuda", "hip")`
    r"|\.name\s*(?:==|!=)\s*[\"'](?:cuda|hip|cpu)[\"']"  # Example: `backend.name == "cuda"`
    r"|[\"'](?:cuda|hip|cpu)[\"']\s*(?:==|!=)\s*[\w.]*backend\b"  # Example: `"cpu" == t.backend`
)
DESCRIPTORS = {ROOT / "kx_core" / "records" / "backends.py"}


def test_the_pattern_catches_each_spelling():
    for line in (
        'if target.backend == "cpu":',
        "if result.target.backend != 'cuda':",
        'if t.backend in ("cuda", "hip"):',
        'if BACKENDS["cuda"].name == "cuda":',
        'if "cpu" == result.target.backend:',
    ):
        assert NAME_TESTS.search(line), line
    for line in ("if not backend_of(result.target).gpu:", 'backend_of(t).binary == "cubin"'):
        assert not NAME_TESTS.search(line), line


def test_no_backend_is_tested_by_name_outside_the_descriptors():
    found = []
    for package in ("kx_core", "kx_gui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path in DESCRIPTORS:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if NAME_TESTS.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
