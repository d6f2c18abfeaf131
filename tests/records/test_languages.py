"""Each kernel language is recognised from a file's own text, most specific first."""

from __future__ import annotations

from kx_core.base.data import data_path, examples
from kx_core.records.languages import LANGUAGES, language_of


def test_each_shipped_example_is_its_languages():
    by_name = {p.name: language_of(p.read_text(), str(p)).name for p in examples()}
    assert by_name["gluon_transpose.py"] == "gluon"
    assert by_name["vector_add.py"] == by_name["matmul_autotune.py"] == "triton"
    cpp = data_path("examples", "cpu", "rmsnorm_avx2.cpp")
    assert language_of(cpp.read_text(), str(cpp)).name == "cpp"


def test_every_language_names_an_example_that_ships_or_says_why_not():
    for lang in LANGUAGES:
        if lang.example:
            path = data_path("examples", *lang.example.split("/"))
            assert path.is_file() and language_of(path.read_text(), str(path)) == lang
        else:
            assert lang.note and not lang.capture  # what kx cannot do yet is said


def test_markers_read_decorators_not_mentions():
    assert language_of("import helion\n\n@helion.kernel()\ndef f(x):\n    pass\n", "f.py").name == "helion"
    assert language_of("@cute.kernel\ndef k():\n    pass\n", "k.py").name == "cute"
    # a comment or a string that names gluon.jit is not a Gluon kernel
    assert (
        language_of("# see @gluon.jit\nx = '@gluon.jit'\n@triton.jit\ndef k():\n    pass\n", "k.py").name
        == "triton"
    )
