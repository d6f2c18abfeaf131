"""A kernel language owns its stages (kx_core.records.languages) and each backend's stage
list is composed from them and its own (kx_core.records.backends); the captures of every
file (Inductor, torch.library, TorchScript) are languages that never name a file's
language. Every consumer sees what it saw before: the lists, the stage names and each
example's language are compared with what kx's descriptors gave at ee1dc88, before the
move (fixtures/descriptors/stage_lists_ee1dc88.json, written from that tree's descriptors,
not by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kx_core.base.data import data_path
from kx_core.records import backends, languages
from kx_core.records.languages import BY_NAME, LANGUAGES, Language, language_of
from kx_core.records.stages import Stage
from kx_testing import ROOT

BEFORE = json.loads((ROOT / "fixtures" / "descriptors" / "stage_lists_ee1dc88.json").read_text())


@pytest.mark.parametrize("backend", sorted(BEFORE["stages"]))
def test_each_backends_stages_are_as_before(backend):
    """The window's tabs, the CLI's --stage and --out, records and bundles all read
    `stages_for` / `ALL_STAGES`: every field of every stage, in the same order."""
    assert [s.to_json() for s in backends.stages_for(backend)] == BEFORE["stages"][backend]
    assert set(backends.BACKENDS) == set(BEFORE["stages"])


def test_every_stage_name_is_as_before():
    assert backends.stage_names() == BEFORE["stage_names"]
    assert backends.Stage is Stage  # where consumers import it from


def test_a_languages_stages_are_its_descriptors_and_lead_its_backends_lists():
    for lang in LANGUAGES:
        for backend in backends.BACKENDS.values():
            listed = [s for s in backend.stages if s in lang.stages]
            expected = list(lang.stages) if lang.compiles_for(backend.name) else []
            assert listed == expected, (lang.name, backend.name)
    # what a language adds comes before the backend's own, which no language declares
    added = {s for lang in LANGUAGES for s in lang.stages}
    for backend in backends.BACKENDS.values():
        flags = [s in added for s in backend.stages]
        assert flags == sorted(flags, reverse=True), backend.name
    assert BY_NAME["helion"].stages[0].name == BY_NAME["helion"].first_stage


def test_every_example_has_the_language_it_had():
    """The Welcome page and File ▸ Examples group and name the examples by language_of."""
    root = Path(data_path("examples"))
    now = {
        p.relative_to(root).as_posix(): language_of(p.read_text(encoding="utf-8"), str(p)).name
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert now == BEFORE["examples"]


def test_a_capture_of_every_file_applies_to_any_python_file_and_names_none():
    every = [lang for lang in LANGUAGES if lang.every_file]
    assert [lang.name for lang in every] == ["torch_library", "torchscript", "inductor"]
    for lang in every:
        assert lang.capture_module and lang.marks("") and lang.marks("x = 1\n")
        assert not lang.recognises("import torch\ntorch.compile(f)\n", "f.py")
        assert not lang.example and not lang.stages
    assert language_of("import torch\n\nf = torch.compile(lambda x: x + 1)\n", "f.py").name == "triton"


def test_a_registered_language_cannot_add_a_stage_yet(monkeypatch):
    """The backends' lists are composed when kx_core.records.backends is imported: a
    language registered later with a stage of its own is refused, not shown without it."""
    monkeypatch.setattr(languages, "_REGISTERED", [])
    monkeypatch.setattr(languages, "BY_NAME", dict(languages.BY_NAME))
    own = Stage("toyir", "toy.mlir", "Toy IR", -6, "mlir", optional=True)
    toy = Language(
        "toy", "Toy", r"^@toy\.kernel", (".py",), "toy", "toyir", False, "", "", "", "", stages=(own,)
    )
    with pytest.raises(ValueError, match="cannot add stages yet \\(toyir\\)"):
        languages.register(toy)
    assert "toy" not in languages.BY_NAME
