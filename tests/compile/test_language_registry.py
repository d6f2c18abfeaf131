"""A kernel language is one descriptor and one capture module, reached through the
language table only: a toy language from outside kx (fixtures/toy_language) is
recognised, its capture is called in the worker and its records are in the result,
without a line of kx naming it."""

from __future__ import annotations

import os
import sys

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.records import languages
from kx_testing import ROOT

TOY = ROOT / "fixtures" / "toy_language"
FILE = TOY / "toy_kernels.py"


@pytest.fixture
def toy_language(monkeypatch):
    """The toy language named in KX_LANGUAGES, its folder on the path of this process
    and of the workers; the table as it was afterwards."""
    monkeypatch.setattr(languages, "_REGISTERED", [])
    monkeypatch.setattr(languages, "_PLUGINS_LOADED", set())
    monkeypatch.setattr(languages, "BY_NAME", dict(languages.BY_NAME))
    monkeypatch.syspath_prepend(str(TOY))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(TOY), os.environ.get("PYTHONPATH")) if p)
    )
    monkeypatch.setenv(languages.PLUGINS_ENV, "kx_toy_language")
    yield
    for name in ("kx_toy_language", "kx_toy_capture"):
        sys.modules.pop(name, None)


def test_a_registered_language_is_recognised_before_triton(toy_language):
    text = FILE.read_text()
    lang = languages.language_of(text, str(FILE))
    assert lang.name == "toy" and languages.BY_NAME["toy"] is lang
    names = [x.name for x in languages.languages()]
    assert names.index("toy") < names.index("triton") and names[-2:] == ["triton", "cpp"]
    # kx's own still come first, and a file without the marker is not the toy's
    assert languages.language_of("@triton.jit\ndef k():\n    pass\n", "k.py").name == "triton"
    with pytest.raises(ValueError, match="already registered"):
        languages.register(languages.Language(**{**lang.__dict__, "display_name": "another"}))


def test_the_worker_calls_its_capture_and_its_records_are_the_result(toy_language):
    result = compile_file(CompileRequest(str(FILE), target="cuda:90"), use_cache=False)
    toy = {k.name: k for k in result.kernels}
    assert sorted(toy) == ["scale", "shift"], [str(d) for d in result.diagnostics]
    for name, k in toy.items():
        assert k.status == "compiled" and k.target.spec == "cuda:90"
        assert k.stages["ttir"] == f"// toy IR of {name} for arch 90\n"  # prepare's state reached finish
        # install ran before the file, then prepare and finish around its run
        assert k.message.startswith(f"toy kernel {name}: installed for toy_kernels.py, prepared in process")
    said = [d.message for d in result.diagnostics if d.kind == "placeholder"]
    assert said == [f"the toy capture saw 2 kernel(s) in {FILE.read_text().count(chr(10))} lines"]
    assert result.output.strip().endswith("4")  # the file itself ran, as a capture runs it


def test_a_target_the_language_does_not_compile_for_runs_without_its_capture(toy_language):
    result = compile_file(CompileRequest(str(FILE), target="hip:gfx942"), use_cache=False)
    assert result.kernels == () and not any("toy" in d.message for d in result.diagnostics)


def test_a_changed_language_list_is_a_new_compile(toy_language, monkeypatch):
    """KX_LANGUAGES decides which captures the worker runs: the result cache keys on it,
    as on a compiler's knob (a result cached before a language was added is not served)."""
    first = compile_file(CompileRequest(str(FILE), target="cuda:90"))
    assert not first.from_cache and compile_file(CompileRequest(str(FILE), target="cuda:90")).from_cache
    monkeypatch.setenv(languages.PLUGINS_ENV, "kx_toy_language,")
    again = compile_file(CompileRequest(str(FILE), target="cuda:90"))
    assert not again.from_cache and sorted(k.name for k in again.kernels) == ["scale", "shift"]


def test_the_worker_reaches_each_capture_through_the_table_in_its_order():
    """The captures of every file (Inductor, torch.library, TorchScript) apply to a file
    without a marker; a DSL's only to a file it marks; none to a backend they do not
    compile for. The worker imports what the table names (capturing/languages)."""
    from kx_core.compile.capturing.languages import _captures
    from kx_core.records.results import Target

    every = ["torch_library", "torchscript", "inductor"]
    cuda, hip = Target("cuda", 90, 32), Target("hip", "gfx942", 64)
    assert [name for name, _ in _captures("x = 1\n", cuda)] == every
    assert [name for name, _ in _captures("@helion.kernel()\ndef f(x):\n    pass\n", cuda)] == [
        "helion",
        *every,
    ]
    assert [name for name, _ in _captures("@cute.kernel\ndef k():\n    pass\n", hip)] == every
    for name, module in _captures("x = 1\n", cuda):
        assert module.__name__ == languages.BY_NAME[name].capture_module and callable(module.install)
