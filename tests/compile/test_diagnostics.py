"""One bad file per diagnostic kind: each becomes a Diagnostic at the right line."""

from __future__ import annotations

import json
import re

from kx_testing import ROOT, kernel_path, line_of


def test_syntax_error(capture):
    r = capture("bad/syntax_error.py")
    (d,) = r.diagnostics
    assert d.kind == "syntax" and d.line == line_of("bad/syntax_error.py", "tl.arange(0, BLOCK")
    assert "never closed" in d.message and not r.ok and r.kernels == ()


def test_compile_error_points_at_the_offending_statement_in_the_helper(capture):
    r = capture("bad/compile_error.py")
    (d,) = [d for d in r.diagnostics if d.kind == "compile"]
    assert d.line == line_of("bad/compile_error.py", "tl.arange(0, 3)")
    assert d.file.endswith("compile_error.py") and "power of 2" in d.message
    assert f"bad_kernel:{line_of('bad/compile_error.py', 'offs = _bad_offsets')}" in d.message
    (k,) = r.kernels
    assert k.name == "bad_kernel" and k.status == "failed" and not r.ok


def test_timeout_kills_the_worker_and_says_where(capture):
    r = capture("bad/infinite_loop.py", timeout_s=6.0)
    (d,) = r.diagnostics
    assert d.kind == "timeout" and not r.ok
    assert d.line in (
        line_of("bad/infinite_loop.py", "while True"),
        line_of("bad/infinite_loop.py", "+= 1"),
    )


def test_segfault_is_a_crash_with_its_line(capture):
    r = capture("bad/segfault.py")
    (d,) = r.diagnostics
    assert d.kind == "crash" and "SIGSEGV" in d.message and not r.ok
    assert d.line == line_of("bad/segfault.py", "string_at(0)")


def test_a_front_end_error_is_in_words_at_its_column(capture):
    """Triton passes repr(e) ("ValueError('Cannot make_shape_compatible: ...')"): kx
    says `ValueError: Cannot ...`, at the line and column of the offending expression."""
    r = capture("bad/shape_error.py")
    (d,) = [d for d in r.diagnostics if d.kind == "compile"]
    line = line_of("bad/shape_error.py", "y = x + tl.zeros")
    assert d.line == line and d.message.startswith("ValueError: Cannot make_shape_compatible")
    assert "('" not in d.message
    text = kernel_path("bad/shape_error.py").read_text().splitlines()[line - 1]
    assert d.column == text.index("x + tl.zeros") + 1  # 1-based, at the BinOp
    assert str(d).startswith(f"{d.file}:{line}:{d.column}: compile: ValueError")


def test_a_suppressed_inductor_failure_names_its_message_and_torchs_frame():
    """The warning dynamo logs when it suppressed an Inductor failure, as the H100's real
    run of kdiff_hdit_sample logged it (benchmarks/real_files/ground_fresh6.json, torch
    2.11: Inductor's value ranges compare two booleans). sympy's TypeError puts its message
    on the lines after "TypeError: ": the not-captured diagnostic said "(InductorError:
    TypeError: )". Now it carries the message and torch's innermost frame."""
    from kx_core.compile.capturing.languages.inductor_capture import _cause

    ground = json.loads((ROOT / "benchmarks/real_files/ground_fresh6.json").read_text())
    tail = ground["kdiff_hdit_sample"]["output_tail"]
    # the message as the logging record holds it: the formatter's "W1205 ... .py:2147] " off
    message = "\n".join(re.sub(r"^W\d{4} [^\]]*\] ", "", line) for line in tail.splitlines())
    cause = _cause(message)
    assert cause.startswith("InductorError: TypeError: A Boolean argument can only be used in Eq and Ne")
    assert cause.endswith("raised at torch/utils/_sympy/value_ranges.py:610")


def test_a_suppressed_triton_rejection_names_the_kernel_the_code_and_tritons_message(tmp_path):
    """Inductor's generated kernel that Triton's front end rejects (mamba.py's PScan
    backward under dynamic shapes, corpus 7): the error holds the kernel's whole source
    first, so the not-captured diagnostic, cut to a length, said only the kernel's name.
    Now it says the line and column, the code under Triton's caret and Triton's message.
    The CompilationError is a real one: Triton's front end compiling a kernel for sm_90."""
    import importlib
    import sys

    import triton
    from triton.backends.compiler import GPUTarget

    from kx_core.compile.capturing.languages.inductor_capture import _cause

    (tmp_path / "gen_kernel.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def triton_poi_fused_pow_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
        "    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:]\n"
        "    tmp0 = tl.load(in_ptr0 + (xindex // tl.full([], 2.0, tl.float64)), xindex < xnumel)\n"
        "    tl.store(out_ptr0 + xindex, tmp0, xindex < xnumel)\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        kernel = importlib.import_module("gen_kernel").triton_poi_fused_pow_0
    finally:
        sys.path.remove(str(tmp_path))
    signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}
    source = triton.compiler.ASTSource(kernel, signature, {"XBLOCK": 128})
    try:
        triton.compile(source, target=GPUTarget("cuda", 90, 32))
    except triton.compiler.CompilationError as e:
        error = str(e)
    else:
        raise AssertionError("Triton compiled a float64 pointer offset")
    # dynamo's warning around it, as it logged mamba.py's (torch 2.14)
    warning = (
        "WON'T CONVERT forward /x/lm.py line 103 \ndue to: \nTraceback (most recent call last):\n"
        '  File "/v/site-packages/triton/compiler/compiler.py", line 80, in make_ir\n'
        "    module = src.make_ir(target, options, codegen_fns, module_map, context)\n"
        f"torch._inductor.exc.InductorError: CompilationError: {error}\n\n"
        "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n"
    )
    line, column = re.match(r"at (\d+):(\d+):", error).groups()
    message = error.strip().splitlines()[-1]
    cause = _cause(warning)
    assert cause.startswith(f"InductorError: CompilationError at {line}:{column} of triton_poi_fused_pow_0")
    assert "xindex // tl.full([], 2.0, tl.float64)" in cause and message in cause


def test_a_module_written_for_a_newer_python_says_which_python(tmp_path):
    """A library written for Python 3.12 (Fast-LLM's `def f[T](...)`, PEP 695; an f-string
    reusing its quotes, PEP 701) imported under 3.11 fails with "expected '('", which says
    nothing of why: the diagnostic names the grammar, the Python it needs and --python.
    The oracle is the running interpreter: under 3.12 the same module imports and the file
    compiles its kernel."""
    import sys

    from kx_core.compile import CompileRequest, compile_file

    (tmp_path / "newer_lib.py").write_text(
        "def first[T](items: list[T]) -> T:\n    return items[0]\n\n\n"
        "def label(parts):\n    return f\"{'.'.join(parts)}\"\n"
    )
    path = tmp_path / "uses_newer.py"
    path.write_text(
        "import torch\nimport triton\nimport triton.language as tl\n\nfrom newer_lib import first\n\n\n"
        "@triton.jit\ndef fill_kernel(y, v, BLOCK: tl.constexpr):\n"
        "    tl.store(y + tl.arange(0, BLOCK), tl.full((BLOCK,), v, tl.float32))\n\n\n"
        'y = torch.empty(128, device="cuda")\nfill_kernel[(1,)](y, first([2.0]), BLOCK=128)\n'
    )
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    try:
        compile("def first[T](items): pass", "probe", "exec")
        newer = True
    except SyntaxError:
        newer = False
    if newer:
        assert [k.name for k in r.kernels] == ["fill_kernel"] and r.exit_status == 0
        return
    (d,) = [d for d in r.diagnostics if d.kind == "runtime"]
    need = "type parameters (PEP 695), Python 3.12 grammar"
    assert need in d.message and f"this is Python {sys.version_info[0]}.{sys.version_info[1]}" in d.message
    assert "--python" in d.message and d.line == 5


def test_the_newer_grammar_patterns_know_their_examples():
    """Each pattern of newer grammar matches its own example line and not the older spelling."""
    from kx_core.compile.artifacts.diagnostics import _NEWER_GRAMMAR

    examples = {
        "type parameters (PEP 695)": ("def wrap[OutputType](fn):", "def wrap(fn):"),
        "a type alias statement (PEP 695)": ("type Vector = list[float]", "Vector = list[float]"),
        "an f-string that reuses its quotes (PEP 701)": ('x = f"{".".join(p)}"', "x = f\"{'.'.join(p)}\""),
    }
    for _, what, pattern in _NEWER_GRAMMAR:
        newer, older = examples[what]
        assert pattern.search(newer) and not pattern.search(older), what
