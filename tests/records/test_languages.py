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
        elif lang.every_file:
            # a capture of every file is no file's language: it has no example of its own
            assert lang.note and lang.capture_module
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


def test_a_missing_package_is_a_missing_extra_only_for_a_languages_own_package():
    """The module a ModuleNotFoundError names: a DSL's package (or a package above its
    module) is that language's extra; a missing submodule of an installed package is not."""
    from kx_core.records.languages import BY_NAME, needing_extra

    assert needing_extra("helion") is BY_NAME["helion"]
    assert needing_extra("cutlass") is needing_extra("cutlass.cute") is BY_NAME["cute"]
    assert needing_extra("tilelang") is BY_NAME["tilelang"]
    assert needing_extra("helion.language") is None and needing_extra("triton") is None
    assert needing_extra("einops") is None and needing_extra("") is None
    message = BY_NAME["helion"].not_installed("No module named 'helion'")
    assert message.startswith("Helion is not installed") and "pip install 'kx[helion]'" in message
