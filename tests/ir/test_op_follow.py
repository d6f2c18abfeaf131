"""Links that follow operations (kx_core.ir.op_follow) on real compiles: every load,
store, copy, matrix instruction and atomic of every stage links to a line whose TTGIR
holds an operation of its kind (the MLIR locations are the AST's: the truth); the PTX's
inline asm takes the line of its LLVM call's `!dbg`; the debug info's own claim stays
linked and is said."""

from __future__ import annotations

import pytest

from kx_core.ir.op_follow import family_of
from kx_core.ir.sourcemap import build_source_map, line_locations
from kx_core.records.backends import ALL_STAGES
from kx_testing import kernel_path, line_of, run_kx

FILE = "links/reassigned_load.py"
CASES = [(FILE, "cuda:90"), (FILE, "cuda:80"), ("matmul.py", "cuda:90"), (FILE, "hip:gfx942")]


def _smap(kernel, name):
    return build_source_map(kernel.stages, str(kernel_path(name)), kernel.source_alias, kernel.source_origins)


def _ops(kernel, stage):
    """(IR line, family) of every recognised operation of a stage."""
    syntax = ALL_STAGES[stage].syntax
    lines = kernel.stages[stage].splitlines()
    return [(n, f) for n, text in enumerate(lines, start=1) if (f := family_of(syntax, text))]


@pytest.mark.parametrize("name,target", CASES)
def test_every_operation_links_to_a_line_holding_its_kind(capture, name, target):
    checked = 0
    for kernel in capture(name, target).kernels:
        sm = _smap(kernel, name)
        truth: dict[str, set[int]] = {}
        for n, family in _ops(kernel, "ttgir"):
            truth.setdefault(family, set()).update(sm.source_lines("ttgir", n)[:1])
        lowered = [s for s in kernel.stages if ALL_STAGES.get(s) and ALL_STAGES[s].syntax != "mlir"]
        for stage in lowered:
            if not ALL_STAGES[stage].links:
                continue
            for n, family in _ops(kernel, stage):
                lines = sm.source_lines(stage, n)
                if family not in truth or not lines:
                    continue
                assert lines[0] in truth[family], (kernel.name, stage, n, family, lines)
                checked += 1
    assert checked > 0


def test_the_reassigned_load_reaches_every_load_and_its_claim_is_kept(capture):
    kernel = next(k for k in capture(FILE).kernels if k.name == "scale_shift")
    sm = _smap(kernel, FILE)
    load = line_of(FILE, "x = tl.load(")
    links = sm.ir_lines(load)
    for stage in ("llir", "ptx", "sass"):
        loads = [n for n, f in _ops(kernel, stage) if f == "global load"]
        assert loads and set(loads) <= set(links[stage]), stage
    raw = {s: line_locations(s, kernel.stages[s]) for s in ("ptx", "sass")}
    for stage, rows in sm.disagreements(load).items():
        for n, f in rows:
            # the claim is the line table's own innermost line, and stays linked
            assert raw[stage][n][0].line == f.claimed != f.line == load
            assert n in sm.ir_lines(f.claimed)[stage]
            assert sm.source_lines(stage, n)[:2] == (load, f.claimed)


def test_inline_asm_lines_take_their_llvm_calls_line(capture):
    """The k-th global load/store asm of the PTX is the k-th of the LLVM IR (side effects
    keep their order): the same source line, whatever `.loc` LLVM wrote inside it."""
    for name, target in CASES[:3]:
        for kernel in capture(name, target).kernels:
            sm = _smap(kernel, name)
            llir, ptx = kernel.stages["llir"].splitlines(), kernel.stages["ptx"].splitlines()
            for needle in ("ld.global", "st.global"):
                calls = [n for n, t in enumerate(llir, 1) if needle in t and "asm" in t]
                insts = [n for n, t in enumerate(ptx, 1) if needle in t and not t.lstrip().startswith("//")]
                if len(calls) != len(insts):
                    continue  # an asm that holds two, or LLVM unrolled one: no order to match
                assert [sm.source_lines("llir", n)[:1] for n in calls] == [
                    sm.source_lines("ptx", n)[:1] for n in insts
                ], (kernel.name, needle)


def test_followed_words_name_both_lines(capture):
    kernel = next(k for k in capture(FILE).kernels if k.name == "scale_shift")
    sm = _smap(kernel, FILE)
    rows = [f for by_line in sm.followed.values() for f in by_line.values()]
    for f in rows:
        words = f.words("SASS")
        assert f"line {f.claimed}" in words and f"line {f.line}'s" in words and f.family in words


def test_links_command_prints_both_claims(capture):
    load = line_of(FILE, "x = tl.load(")
    r = run_kx("links", str(kernel_path(FILE)), "--target", "cuda:90", "--line", str(load), "--json")
    assert r.returncode == 0, r.stderr
    import json

    data = json.loads(r.stdout)
    stages = next(k["stages"] for k in data["kernels"] if k["kernel"] == "scale_shift")
    kernel = next(k for k in capture(FILE).kernels if k.name == "scale_shift")
    sm = _smap(kernel, FILE)
    for stage, row in stages.items():
        assert row["lines"] == list(sm.ir_lines(load)[stage])
        expected = [n for n, f in sm.disagreements(load).get(stage, ()) if f.line == load]
        assert [f["ir_line"] for f in row["followed_here"]] == expected
