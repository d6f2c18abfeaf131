"""Which arguments a launch may write, from its TTIR's stores (issue 50, item 1: "only
what a skipped kernel would have written is unknown"). A kernel that only reads the
cumulative lengths the host made leaves them known; a buffer it stores into does not."""

from __future__ import annotations

from kx_core.compile import CompileRequest, compile_file
from kx_core.ir.stored_args import written_arguments
from kx_testing import ROOT

FILE = ROOT / "fixtures" / "kernels" / "host_reads" / "offsets_read_after_launch.py"


def test_the_stores_pointers_come_from_these_arguments(capture):
    by_name = {k.name: k for k in capture("matmul.py").kernels + capture("two_kernels.py").kernels}
    assert written_arguments(by_name["matmul_kernel"].stages["ttir"]) >= {"c_ptr"}
    assert not written_arguments(by_name["matmul_kernel"].stages["ttir"]) & {"a_ptr", "b_ptr"}
    assert written_arguments(by_name["scale_kernel"].stages["ttir"]) & {"x_ptr", "out_ptr"} == {"out_ptr"}


def test_what_the_text_does_not_show_is_any_argument():
    loaded = (
        "tt.func public @k(%pp: !tt.ptr<!tt.ptr<f32>> loc(#loc), %v: f32 loc(#loc)) attributes {noinline = false} {\n"
        "  %p = tt.load %pp : !tt.ptr<!tt.ptr<f32>> loc(#loc)\n"
        "  tt.store %p, %v : !tt.ptr<f32> loc(#loc)\n"
    )
    assert written_arguments(loaded) is None  # a pointer read from memory
    chosen = (
        "tt.func public @k(%a: !tt.ptr<f32> loc(#loc), %b: !tt.ptr<f32> loc(#loc), %c: i1 loc(#loc)) attributes {} {\n"
        "  %p = scf.if %c -> (!tt.ptr<f32>) {\n    scf.yield %a : !tt.ptr<f32>\n  } else {\n"
        "    scf.yield %b : !tt.ptr<f32>\n  }\n  %v = arith.constant 1.0 : f32\n  tt.store %p, %v : !tt.ptr<f32>\n"
    )
    assert written_arguments(chosen) is None  # a pointer yielded from a region


def test_a_read_only_argument_stays_known_after_the_launch():
    r = compile_file(CompileRequest(str(FILE), target="cuda:90"), use_cache=False)
    total = sum([17, 300, 64, 1000])  # the file's lens: what a real run reads back
    (fill,) = [k for k in r.kernels if k.name == "fill"]
    assert fill.launch.grid == ((total * 64 + 1023) // 1024, 1, 1)
    # cu_seqlens[-1] after pack_rows only read it: exact, no placeholder; the count
    # count_long stored: a guess, said at its line
    line = (
        FILE.read_text()
        .splitlines()
        .index("n_long = int(count.item())  # written by the kernel: a real run's count")
    )
    reads = [d.line for d in r.diagnostics if d.kind == "placeholder"]
    assert reads == [line + 1], [str(d) for d in r.diagnostics]
