"""The user's file runs as `python FILE` runs it: kx's own `from __future__` imports do
not reach it (its annotations stay the objects they name: CuTe DSL's @cute.struct reads
them as types), and an error whose message starts on a new line is shown with its text."""

from __future__ import annotations

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.diagnostics import runtime_diagnostic


def test_annotations_are_not_strings_under_the_capture(tmp_path):
    path = tmp_path / "annotated.py"
    path.write_text(
        "def f(x: int) -> float:\n    return x\n\nassert f.__annotations__['x'] is int, f.__annotations__\n"
    )
    result = compile_file(CompileRequest(str(path), target="cuda:90"))
    assert not [d for d in result.diagnostics if d.kind == "runtime"], [str(d) for d in result.diagnostics]


def test_a_message_that_starts_on_a_new_line_keeps_its_text():
    class DSLUserCodeError(Exception):
        pass

    try:
        raise DSLUserCodeError("\n  Struct element only support struct/array types\n  more")
    except DSLUserCodeError as e:
        d = runtime_diagnostic(e, "/nowhere.py")
    assert d.message.startswith("DSLUserCodeError: Struct element only support struct/array types")


def test_a_wrapped_error_names_where_its_cause_was_raised(tmp_path):
    # Helion wraps Inductor's LoweringException, itself around a bare `assert`: the outer
    # message says nothing; the diagnostic says which assert failed, and where (a library
    # of the test's own: pytest rewrites the asserts of test modules)
    import runpy

    lib = tmp_path / "lowering.py"
    lib.write_text("def lowering():\n    scheduling = None\n    assert scheduling\n")
    lowering = runpy.run_path(str(lib))["lowering"]
    try:
        try:
            lowering()
        except AssertionError as inner:
            raise RuntimeError("AssertionError: ") from inner
    except RuntimeError as e:
        d = runtime_diagnostic(e, "/nowhere.py")
    assert d.message.startswith("RuntimeError: AssertionError:")
    assert "; caused by AssertionError at " in d.message
    assert d.message.endswith("lowering.py:3: assert scheduling")
