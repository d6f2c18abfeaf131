"""Every IR parser, fed random and truncated text: a result or a declared parse error,
never another exception."""

from __future__ import annotations

import gzip

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kx_core.ir import anatomy
from kx_core.ir.passes import PassDumpError, parse_pass_dump
from kx_core.ir.sourcemap import build_source_map, line_locations
from kx_testing import ROOT

FIX = sorted((ROOT / "fixtures" / "ir").glob("*/cuda80"))[-1]
REAL = {
    name: (FIX / name).read_text()
    for name in ("matmul.ttgir.mlir", "matmul.llir.ll", "matmul.ptx", "matmul.sass")
}
DUMP = gzip.decompress((FIX / "matmul.passes.txt.gz").read_bytes()).decode()[:200_000]
STAGE_OF = {
    "matmul.ttgir.mlir": "ttgir",
    "matmul.llir.ll": "llir",
    "matmul.ptx": "ptx",
    "matmul.sass": "sass",
}

# Characters that matter to the parsers, and arbitrary unicode besides.
IR_ALPHABET = st.sampled_from(
    list('#%@!^<>[]{}(),:;="\n .-_0123456789abcdefxloctgmn/*') + ["loc(", "tt.", "ttg."]
)
ir_noise = st.lists(IR_ALPHABET, max_size=300).map("".join)


def run_all(text: str) -> None:
    try:
        anatomy.detect_stage(text)
    except anatomy.IRParseError:
        pass
    anatomy.mlir_ops(text)
    anatomy.dialect_histogram(text)
    anatomy.layout_aliases(text)
    anatomy.convert_layouts(text)
    anatomy.ptx_instructions(text)
    anatomy.concepts(text)
    anatomy.parse_attr_body(text)
    for stage in ("ttir", "ttgir", "llir", "ptx", "amdgcn", "sass"):
        line_locations(stage, text)
    build_source_map({"ttgir": text, "ptx": text}, "/x/kernel.py")
    try:
        parse_pass_dump(text)
    except PassDumpError:
        pass


# derandomized: CI runs the same examples every time
FUZZ = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@FUZZ
@given(ir_noise)
def test_random_ir_like_text(text):
    run_all(text)


@FUZZ
@given(st.text(max_size=400))
def test_random_unicode(text):
    run_all(text)


@FUZZ
@given(st.sampled_from(sorted(REAL)), st.integers(min_value=0, max_value=60_000), st.integers(0, 2000))
def test_truncated_and_spliced_real_ir(name, cut, splice):
    text = REAL[name]
    cut %= len(text) + 1
    run_all(text[:cut])
    run_all(text[cut:] + text[: splice % (len(text) + 1)])


@FUZZ
@given(st.integers(min_value=0, max_value=len(DUMP)))
def test_truncated_pass_dump(cut):
    run_all(DUMP[:cut])


def test_real_text_still_parses():
    for name, text in REAL.items():
        assert anatomy.detect_stage(text) == STAGE_OF[name]
        assert line_locations(STAGE_OF[name], text)
