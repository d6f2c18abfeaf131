"""Issue 33 on real GCC compiles: Compiler Explorer's filters (library functions by the
DWARF file of their definition, directives, comment-only lines, demangled names) and
every loop's vectorization remark on its line, inlined loops included.

The oracles are the compiler's own outputs read by another path: the library filter is
checked against `readelf --debug-dump=info/line` of an object g++ compiles here, or GNU as
assembles from the assembly g++ wrote for kx (readelf reads the binary DWARF, not the
annotated text kx reads), the remarks against the `.opt-record.json.gz` and the
`-fopt-info-vec-all` text of that same compile."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from kx_core.cpu.compile import compile_cpp, gcc_command, torch_include_flags
from kx_core.cpu.remarks import line_marks
from kx_core.ir.display_filters import DisplayFilters, filter_stage
from kx_testing import ROOT, run_kx

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None or shutil.which("readelf") is None or shutil.which("as") is None,
    reason="needs g++, readelf and as",
)
FIXTURES = ROOT / "fixtures" / "kernels" / "cpu_filters"
EXTENSION = ROOT / "kx_core" / "data" / "examples" / "cpu_ext" / "silu_mul_ext.cpp"

# readelf's lines. Examples: " <1><2a3f>: Abbrev Number: 98 (DW_TAG_subprogram)",
# "    <2a40>   DW_AT_specification: <0x1b3a>", "    <1c11>   DW_AT_decl_file   : 7",
# "    <2a44>   DW_AT_linkage_name: (indirect string, offset: 0x3ef2): _ZN6kx_fix3dotEPKfS1_l"
_DIE_RE = re.compile(r"^\s*<\d+><([0-9a-f]+)>: Abbrev Number: \d+ \((DW_TAG_\w+)\)")
_ATTR_RE = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*: (.*)$")
# Examples: "  1\t(indirect line string, offset: 0x47): /work/k", "  8\t1\t(indirect ...): helpers.hpp"
_DIR_ROW_RE = re.compile(r"^\s*(\d+)\s+\(indirect line string, offset: 0x[0-9a-f]+\): (.*)$")
_FILE_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+\(indirect line string, offset: 0x[0-9a-f]+\): (.*)$")


def _readelf(obj: Path, what: str) -> str:
    return subprocess.run(
        ["readelf", f"--debug-dump={what}", str(obj)], capture_output=True, text=True
    ).stdout


def dwarf_definitions(obj: Path) -> dict[str, str]:
    """Linkage name -> the file of its definition, for every function with code in `obj`
    (a DW_TAG_subprogram with DW_AT_low_pc or DW_AT_ranges), as readelf reads the DWARF."""
    dirs, files = {}, {}
    table = _readelf(obj, "line")
    for raw in table.split("The File Name Table")[0].splitlines():
        if m := _DIR_ROW_RE.match(raw):
            dirs[m.group(1)] = m.group(2)
    for raw in table.split("The File Name Table")[1].split("Line Number Statements")[0].splitlines():
        if m := _FILE_ROW_RE.match(raw):
            files[m.group(1)] = os.path.join(dirs[m.group(2)], m.group(3))
    dies: dict[str, dict[str, str]] = {}
    current = None
    for raw in _readelf(obj, "info").splitlines():
        if m := _DIE_RE.match(raw):
            current = dies.setdefault(m.group(1), {}) if m.group(2) == "DW_TAG_subprogram" else None
        elif current is not None and (a := _ATTR_RE.match(raw)):
            current[a.group(1)] = a.group(2).split(": ")[-1].strip()

    def attr(die: dict, name: str) -> str | None:
        for _ in range(8):  # a concrete DIE -> its declaration or abstract instance
            if name in die:
                return die[name]
            ref = die.get("DW_AT_specification") or die.get("DW_AT_abstract_origin")
            if not ref or ref.strip("<>").removeprefix("0x") not in dies:
                return None
            die = dies[ref.strip("<>").removeprefix("0x")]
        return None

    out = {}
    for die in dies.values():
        if "DW_AT_low_pc" in die or "DW_AT_ranges" in die:
            name = attr(die, "DW_AT_linkage_name") or attr(die, "DW_AT_name")
            file = attr(die, "DW_AT_decl_file")
            if name and file is not None:
                out[name] = files[file]
    return out


def _symbol(kernel) -> str:
    """A kernel's mangled name (the demangled table maps it to the kernel's name)."""
    return next((m for m, d in kernel.demangled.items() if d == kernel.name), kernel.name)


def _gcc_object(source: Path, tmp: Path) -> tuple[Path, Path, str]:
    """The object, the JSON optimisation record and the -fopt-info text of the same
    compile kx runs (its flags, `-c` instead of `-S -dA`)."""
    cmd = gcc_command(str(source), "avx2", str(tmp / "k.s"), str(tmp / "remarks.txt"))
    cmd = [a for a in cmd if a not in ("-S", "-dA", "-masm=intel")]
    cmd[cmd.index("-o") + 1] = str(tmp / "k.o")
    if "torch/extension.h" in source.read_text():
        cmd[1:1] = torch_include_flags()
    subprocess.run([*cmd, "-c"], check=True, cwd=source.parent, capture_output=True)
    (record,) = tmp.glob("*.opt-record.json.gz")
    return tmp / "k.o", record, (tmp / "remarks.txt").read_text()


def _user(path: str, folder: Path) -> bool:
    real = os.path.realpath(path)
    return real.startswith(str(folder) + os.sep) and "/site-packages/" not in real


def test_library_functions_are_those_dwarf_defines_outside_the_users_folder(tmp_path):
    r = compile_cpp(str(FIXTURES / "uses_std.cpp"), "cpu:avx2")
    obj, _, _ = _gcc_object(FIXTURES / "uses_std.cpp", tmp_path)
    oracle = dwarf_definitions(obj)
    kx = {_symbol(k): k for k in r.kernels}
    # a function in the header beside the file is the user's; std::sort's is a library's
    assert {s for s, f in oracle.items() if _user(f, FIXTURES)} == {
        s for s, k in kx.items() if not k.library_code
    }
    # the library's, by the file of each definition (a clone of a local lambda's template,
    # `.isra.0`, has no linkage name in DWARF to match by)
    library = Counter(f for f in oracle.values() if not _user(f, FIXTURES))
    assert library == Counter(k.defined_in for k in kx.values() if k.library_code)
    assert any(k.defined_in.endswith("helpers.hpp") for k in kx.values() if not k.library_code)
    assert any("/usr/include/c++" in k.defined_in for k in kx.values() if k.library_code)
    assert not r.kernels[0].library_code  # the user's functions come first (selected first)


def test_demangle_and_comment_filters_on_the_assembly():
    r = compile_cpp(str(FIXTURES / "uses_std.cpp"), "cpu:avx2")
    k = next(k for k in r.kernels if k.name.startswith("kx_fix::top_k_dot"))
    full = k.stages["asm"]
    shown = filter_stage(full, "gas", DisplayFilters(), k.demangled).text
    assert shown.splitlines()[0] == f"{k.name}:"  # the header line reads as C++
    assert "_ZN6kx_fix" not in shown and "call\tkx_fix::dot(float const*, float const*, long)" in shown
    assert any(t.lstrip().startswith("#") for t in full.splitlines())
    assert not any(t.lstrip().startswith("#") for t in shown.splitlines())
    # every jump's target stays, and each label shown is named by some instruction or data
    targets = set(re.findall(r"^\s*j\w+\s+(\.L\w+)", full, re.M))
    kept = set(re.findall(r"^(\.L\w+):", shown, re.M))
    named = {m for t in full.splitlines() if not t.endswith(":") for m in re.findall(r"\.L\w+", t)}
    assert targets and targets <= kept and kept <= named
    raw = filter_stage(full, "gas", DisplayFilters(demangle=False, hide_comment_lines=False), k.demangled)
    assert "_ZN6kx_fix" in raw.text and any(t.lstrip().startswith("#") for t in raw.text.splitlines())


def test_cli_filter_hides_library_functions_and_says_how_many():
    args = ["compile", str(FIXTURES / "uses_std.cpp"), "--target", "cpu:avx2", "--json"]
    shown = json.loads(run_kx(*args).stdout)
    everything = json.loads(run_kx(*args, "--filter", "none").stdout)
    library = sum(1 for k in everything["kernels"] if k["library_code"])
    assert library > 0 and shown["hidden_library_functions"] == library
    assert len(shown["kernels"]) == len(everything["kernels"]) - library
    assert all(not k["library_code"] for k in shown["kernels"])
    p = run_kx("stages", str(FIXTURES / "uses_std.cpp"), "--target", "cpu:avx2", "--stage", "asm")
    assert p.returncode == 0 and f"{library} library function" in p.stderr and "_ZN6kx_fix" not in p.stdout
    p = run_kx(
        "stages",
        str(FIXTURES / "uses_std.cpp"),
        "--target",
        "cpu:avx2",
        "--stage",
        "asm",
        "--filter",
        "no-demangle",
    )
    assert "_ZN6kx_fix" in p.stdout
    p = run_kx(
        "stages",
        str(FIXTURES / "uses_std.cpp"),
        "--target",
        "cpu:avx2",
        "--stage",
        "asm",
        "--filter",
        "bogus",
    )
    assert p.returncode == 2 and "unknown filter 'bogus'" in p.stderr


@pytest.fixture(scope="module")
def extension(tmp_path_factory):
    """The torch-extension example compiled by kx, and the same compile's own outputs: its
    JSON record and -fopt-info text as g++ wrote them, and an object GNU as assembles from
    the assembly g++ wrote (readelf reads its DWARF; kx reads the assembly's text). One g++
    run: with torch's headers, about 15 s (the example includes ATen's per-operator headers)."""
    tmp = tmp_path_factory.mktemp("ext")
    r = compile_cpp(str(EXTENSION), "cpu:avx2", keep=str(tmp))
    subprocess.run(["as", str(tmp / "out.s"), "-o", str(tmp / "k.o")], check=True, capture_output=True)
    (record,) = tmp.glob("*.opt-record.json.gz")
    return r, tmp / "k.o", record, (tmp / "remarks.txt").read_text()


def test_a_torch_extension_shows_only_the_users_functions(extension):
    r, obj, _, _ = extension
    oracle = dwarf_definitions(obj)
    mine = [k for k in r.kernels if not k.library_code]
    # the user's: what DWARF defines in the file (their OpenMP bodies and cold parts with them)
    parts = r"\.cold|_omp_fn|^_GLOBAL__sub_I_"
    assert {_symbol(k) for k in mine if not re.search(parts, _symbol(k))} == {
        s for s, f in oracle.items() if _user(f, EXTENSION.parent)
    }
    # the static initializer GCC writes for TORCH_LIBRARY has no declaration in DWARF: kx
    # keeps it with the user's by the line table, and its first line is the registration's
    (init,) = [k for k in mine if k.name.startswith("_GLOBAL__sub_I_") and ".cold" not in k.name]
    lines = EXTENSION.read_text().splitlines()
    assert lines[init.source_line - 1].startswith("TORCH_LIBRARY(")
    assert any("_omp_fn" in _symbol(k) for k in mine)
    hidden = len(r.kernels) - len(mine)
    assert hidden > 80 and len(mine) < 10  # c10, ATen and libstdc++ code: hidden


def _record_loops(record: Path, source: Path) -> dict[tuple[str, int], tuple[bool, list]]:
    """(function, line) -> (vectorized, inlining chain) of every loop in `source` the loop
    vectorizer gave a verdict on, read straight from GCC's JSON record."""
    _, passes, records = json.load(gzip.open(record, "rt"))
    names = {}
    stack = list(passes)
    while stack:
        p = stack.pop()
        names[p["id"]] = p["name"]
        stack += p.get("children", [])
    loops: dict[tuple[str, int], tuple[bool, list]] = {}
    for r in records:
        text = "".join(m for m in r.get("message", []) if isinstance(m, str))
        loc = r.get("location", {})
        if names.get(r["pass"]) != "vect" or loc.get("file") != str(source):
            continue
        if text.startswith(("loop vectorized", "couldn't vectorize loop")):
            key = (r["function"], loc["line"])
            done = loops.get(key, (False, []))[0] or text.startswith("loop vectorized")
            loops[key] = (done, r.get("inlining_chain", []))
    return loops


def test_every_loops_remark_is_on_its_line_inlined_ones_included(extension):
    r, _, record, fopt_info = extension
    loops = _record_loops(record, EXTENSION)
    by_symbol = {_symbol(k): k for k in r.kernels}
    inlined = 0
    for (function, line), (vectorized, chain) in loops.items():
        stage = by_symbol[function].stages["vectorization"]
        mine = [t for t in stage.splitlines() if t.startswith(f"{EXTENSION.name}:{line}:")]
        assert mine, (function, line, stage)
        assert any(("not vectorized" not in t) == vectorized for t in mine), (function, line, mine)
        sites = [c["site"]["line"] for c in chain if "site" in c]
        if sites:  # a helper's loop inlined into its caller: said so, with the call's line
            inlined += 1
            assert any(f"inlined at line {sites[0]}" in t for t in mine), mine
    assert inlined >= 3  # the three helpers' loops in the OpenMP body, first_nan's in its caller
    assert any("_omp_fn" in f for f, _ in loops)
    # the missed loops say why (the analysis' reasons, not only "couldn't vectorize loop")
    body = next(k for k in r.kernels if "_omp_fn" in _symbol(k)).stages["vectorization"]
    assert "function calls or data references that cannot be analyzed" in body
    # and -fopt-info's own verdicts: each on its line in the Source pane's gutter marks
    marks = line_marks(k.stages.get("vectorization", "") for k in r.kernels)
    for m in re.finditer(
        rf"{re.escape(str(EXTENSION))}:(\d+):\d+: (optimized: loop vectorized|missed: couldn't)", fopt_info
    ):
        assert int(m.group(1)) in marks, m.group(0)
        if m.group(2).startswith("optimized"):
            assert marks[int(m.group(1))][0] == "vectorized", m.group(0)


BUILD_TOML = ROOT / "fixtures" / "kernels" / "cpu_build_toml"


def test_a_build_toml_gives_the_files_flags_and_kx_says_so(tmp_path):
    path = BUILD_TOML / "src" / "widen_avx512.cpp"
    # the oracle: with kx's avx512 tier flags alone g++ refuses (_mm512_insertf32x8 is DQ);
    # run in tmp_path, where its optimisation record goes
    tier = gcc_command(str(path), "avx512", str(tmp_path / "k.s"), str(tmp_path / "remarks.txt"))
    p = subprocess.run([*tier, f"-I{BUILD_TOML / 'src'}"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode != 0 and "target specific option mismatch" in p.stderr
    r = compile_cpp(str(path), "cpu:avx512")
    assert not [d for d in r.diagnostics if d.fatal] and [k.name for k in r.kernels] == [
        "kx_fix::avx512::join_halves(float const*, float const*, float*, long)"
    ]
    (note,) = [d for d in r.diagnostics if d.kind == "flags"]
    assert "[kernel.widen_avx512]" in note.message and "-mavx512dq" in note.message


def test_a_header_of_the_users_that_includes_torch_brings_torchs_include_folders(tmp_path):
    from kx_core.cpu.compile import _includes_torch

    (tmp_path / "types.hpp").write_text('#pragma once\n#include "inner.hpp"\n')
    (tmp_path / "inner.hpp").write_text("#include <torch/all.h>\n")
    kernel = tmp_path / "k_avx2.cpp"
    kernel.write_text('#include <immintrin.h>\n#include "types.hpp"\n')
    assert _includes_torch(str(kernel), kernel.read_text())
    (tmp_path / "inner.hpp").write_text("#include <cstdint>\n")
    assert not _includes_torch(str(kernel), kernel.read_text())


LIBRARY = ROOT / "fixtures" / "kernels" / "cpu_library"


def test_a_library_template_holding_the_users_loop_stays_shown(tmp_path):
    """at::parallel_for's shape: the user's lambda, with its loop, is compiled inside a
    library template's OpenMP body. DWARF says the body is the library's; the record says
    the user's loop is in it: the library filter keeps it, and says why."""
    from kx_core.ir.display_filters import hidden_by_library_filter

    source = LIBRARY / "user" / "scale_rows.cpp"
    r = compile_cpp(str(source), "cpu:avx2")
    obj, record, _ = _gcc_object(source, tmp_path)
    loops = _record_loops(record, source)
    (function,) = {f for f, _ in loops}
    assert "parallel_for" in function and "_omp_fn" in function  # the oracle: where GCC put the loop
    body = next(k for k in r.kernels if _symbol(k) == function)
    assert body.library_code and body.defined_in.endswith("lib/parallel.hpp")
    assert not hidden_by_library_filter(body, DisplayFilters())
    line = (
        next(i for i, t in enumerate(source.read_text().splitlines(), 1) if "x[r * n + j] *= scale[r]" in t)
        - 1
    )
    (remark,) = body.stages["vectorization"].splitlines()
    assert (
        remark.startswith(f"scale_rows.cpp:{line}:")
        and "a lambda in kx_fix::scale_rows inlined at parallel.hpp:" in remark
    )
    hidden = [k for k in r.kernels if hidden_by_library_filter(k, DisplayFilters())]
    assert hidden and all(k.library_code and not k.stages["vectorization"] for k in hidden)
    assert [k.library_code for k in r.kernels][:2] == [
        False,
        True,
    ]  # the user's, then the body holding theirs


def test_a_name_cfilt_cannot_demangle_reads_as_dwarfs_name(tmp_path, monkeypatch):
    """c++filt 2.40 leaves some at::parallel_for bodies mangled (megablocks' MoE kernel):
    kx names them by DWARF's DW_AT_name, checked here against readelf's."""
    import kx_core.cpu.compile as cpu_compile

    source = LIBRARY / "user" / "scale_rows.cpp"
    obj, _, _ = _gcc_object(source, tmp_path)
    dies: dict[str, dict[str, str]] = {}
    current = None
    for raw in _readelf(obj, "info").splitlines():
        if m := _DIE_RE.match(raw):
            current = dies.setdefault(m.group(1), {}) if m.group(2) == "DW_TAG_subprogram" else None
        elif current is not None and (a := _ATTR_RE.match(raw)):
            current[a.group(1)] = a.group(2).split(": ")[-1].strip()

    def name_of(die: dict) -> str | None:  # on the DIE, or its declaration's / abstract instance's
        ref = (die.get("DW_AT_specification") or die.get("DW_AT_abstract_origin") or "").strip("<>")
        ref = ref.removeprefix("0x")
        return die.get("DW_AT_name") or (name_of(dies[ref]) if ref in dies else None)

    # the body's function: the concrete parallel_for instance (its DW_AT_specification's name)
    (instance,) = [
        name_of(d)
        for d in dies.values()
        if "DW_AT_low_pc" in d and (name_of(d) or "").startswith("parallel_for<")
    ]
    monkeypatch.setattr(cpu_compile, "demangle", lambda symbols: {s: s for s in symbols})  # c++filt failing
    r = compile_cpp(str(source), "cpu:avx2")
    body = next(k for k in r.kernels if k.stages["vectorization"])
    assert body.name == f"{instance} [clone ._omp_fn.0]"
    assert body.name in body.demangled.values()  # the demangle filter uses it too


def test_every_cpp_example_compiles_keeps_every_rule_and_shows_its_own_functions():
    """File > Examples' C++ entries (the torch extension's compile is the fixture above)."""
    from kx_core.base.data import cpp_examples
    from kx_core.cpu.checks import check_file
    from kx_core.cpu.targets import tier_of_file

    for path in cpp_examples():
        assert check_file(str(path)) == [], path.name
        if path == EXTENSION:
            continue
        r = compile_cpp(str(path), f"cpu:{tier_of_file(str(path)) or 'avx2'}")
        assert not [d for d in r.diagnostics if d.fatal] and r.kernels, path.name
        assert not r.kernels[0].library_code and r.kernels[0].stages["vectorization"], path.name
