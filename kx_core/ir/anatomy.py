"""IR anatomy (drill T1): which stage a text is, its ops per dialect, layout encodings and
conversions, tensor-core instructions, and the concepts that appear or vanish between
stages. Names, signatures and return shapes are the drill's; both Triton GPU-dialect
spellings (`ttg.` since 3.2, `triton_gpu.` before) are read.

Malformed input gives an `IRParseError` (detect_stage) or an empty answer, never another
exception.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kx_core.records.backends import compiler_stages


class IRParseError(ValueError):
    """Text that is not any stage kx knows."""


# ---------------------------------------------------------------- stage detection

# Example: ".version 8.7" / ".target sm_90a"
_PTX_RE = re.compile(r"^\s*\.(?:version|target|entry|visible \.entry)\b", re.MULTILINE)
# Example: "define ptx_kernel void @add_kernel(" / "; ModuleID = 'LLVMDialectModule'"
_LLIR_RE = re.compile(r"^(?:define\s|declare\s|; ModuleID|target datalayout|source_filename)", re.MULTILINE)
# Example: "#blocked = #ttg.blocked<{...}>" / "ttg.convert_layout" / "triton_gpu.local_alloc"
_TTGIR_RE = re.compile(
    r"#(?:ttg|triton_gpu)\.|\b(?:ttg|triton_gpu|ttng|triton_nvidia_gpu)\.[a-z_]+|\"ttg\.num-warps\""
)
# Example: "  tt.func public @add_kernel(" / "tt.load"
_TTIR_RE = re.compile(r"\btt\.[a-z_]+")
# Example: "        /*0070*/                   IMAD.SHL.U32 R17, R17, 0x400, RZ ;"
_SASS_RE = re.compile(r"^\s*/\*[0-9a-f]{4}\*/\s+\S", re.MULTILINE)
# Example: "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"" / "\ts_load_dwordx2 s[0:1], ..."
_AMDGCN_RE = re.compile(r"\.amdgcn_target|\.amdhsa_kernel|^\s+[sv]_[a-z_0-9]+\s", re.MULTILINE)


# Every stage shows its signature in its first lines (a module header, aliases, the
# first ops): detection reads this much, not a whole 10 MB LLVM IR.
_DETECT_WINDOW = 65536


def detect_stage(text: str) -> str:
    """'ptx' | 'llir' | 'ttgir' | 'ttir' (checked in that order: lower stages are
    unambiguous); kx also answers 'sass' and 'amdgcn', checked first. Raises
    IRParseError for text that is none of them."""
    text = text[:_DETECT_WINDOW]
    if _SASS_RE.search(text):
        return "sass"
    if _AMDGCN_RE.search(text):
        return "amdgcn"
    if _PTX_RE.search(text):
        return "ptx"
    if _LLIR_RE.search(text):
        return "llir"
    if _TTGIR_RE.search(text):
        return "ttgir"
    if _TTIR_RE.search(text):
        return "ttir"
    raise IRParseError("not TTIR, TTGIR, LLVM IR, PTX, SASS or AMDGCN text")


# ---------------------------------------------------------------- MLIR ops

# The drill's pattern. Example lines:
#   "%x_4 = tt.addptr %x_3, %cols : tensor<256x!tt.ptr<f32>, #blocked> loc(#loc23)"
#   "%0:2 = scf.for %arg3 = %c0 to %c8 step %c1 iter_args(...)"
#   "tt.func public @add_kernel(...)"
_OP = re.compile(r"^\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?\"?([a-z_]+\.[a-z_][\w.]*)\"?(?=[\s({<]|$)")


def mlir_ops(text: str) -> Counter:
    """Counter of fully qualified op names ('tt.load', 'ttg.convert_layout', 'scf.for', ...).
    One op per line in printed MLIR; attribute alias lines (#x = ...) and comments are skipped."""
    ops: Counter = Counter()
    for line in text.splitlines():
        stripped = line.lstrip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        m = _OP.match(line)
        if m:
            ops[m.group(1)] += 1
    return ops


def dialect_histogram(text: str) -> Counter:
    """Counter dialect -> number of ops ('tt', 'ttg', 'arith', 'scf', ...)."""
    hist: Counter = Counter()
    for op, n in mlir_ops(text).items():
        hist[op.split(".", 1)[0]] += n
    return hist


# ---------------------------------------------------------------- layouts


def _unquoted(text: str, start: int = 0):
    """(index, character) of each character of `text` from `start` that is outside a
    double-quoted string (the quotes excluded; backslash escapes inside honoured), as MLIR
    writes strings: `loc("a(b"(#loc1))`."""
    quoted, i = False, start
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        else:
            yield i, ch
        i += 1


def split_top_level(text: str, sep: str = ",", keep_empty: bool = False) -> list[str]:
    """Split on `sep` (one or more characters) outside (), [], {}, <> and double quotes;
    parts stripped, empty parts dropped unless keep_empty."""
    parts, depth, start = [], 0, 0
    for i, ch in _unquoted(text):
        if i < start:
            continue  # inside a separator just matched
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
    parts.append(text[start:])
    return [p.strip() for p in parts if keep_empty or p.strip()]


_INT_RE = re.compile(r"^-?\d+$")


def _value(text: str) -> Any:
    text = text.strip()
    if _INT_RE.match(text):
        return int(text)
    if text.startswith("[") and text.endswith("]"):
        items = split_top_level(text[1:-1])
        values = [_value(v) for v in items]
        if all(isinstance(v, (int, list)) for v in values):
            return values
        return text
    return text


def parse_attr_body(body: str) -> dict[str, Any]:
    """'sizePerThread = [1, 4], order = [1, 0], vec = 8, parent = #blocked' -> dict.
    Lists become lists of ints, ints become ints, anything else stays a string."""
    out: dict[str, Any] = {}
    for part in split_top_level(body):
        if "=" not in part:
            continue
        key, value = part.split("=", 1)
        out[key.strip()] = _value(value)
    return out


# Example: "#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
# Example: "#smem = #ttg.shared_memory"
_ALIAS_RE = re.compile(
    r"^(#[\w$.-]+)\s*=\s*#(?:ttg|triton_gpu|ttng|triton_nvidia_gpu|amdgpu)\.(\w+)(<.*>)?\s*$"
)
# Older Triton spells the swizzled shared layout `#triton_gpu.shared<{vec = ...}>`.
_KIND_ALIASES = {"shared": "swizzled_shared"}


def parse_layout(attr: str) -> dict[str, Any] | None:
    """'#ttg.blocked<{sizePerThread = [1, 8], ...}>' -> {'kind': 'blocked', ...}; None if
    the text is not a Triton layout attribute."""
    m = re.match(r"^#(?:ttg|triton_gpu|ttng|triton_nvidia_gpu|amdgpu)\.(\w+)(<.*>)?$", attr.strip())
    if not m:
        return None
    kind = _KIND_ALIASES.get(m.group(1), m.group(1))
    params = m.group(2)
    out: dict[str, Any] = {"kind": kind}
    if params:
        inner = params[1:-1].strip()
        if inner.startswith("{") and inner.endswith("}"):
            out.update(parse_attr_body(inner[1:-1]))
        elif "{" in inner and inner.endswith("}"):
            # e.g. padded_shared<[32:+4] {order = [1, 0], ...}>
            head, _, body = inner.partition("{")
            out["params"] = head.strip()
            out.update(parse_attr_body(body[:-1]))
        else:
            out["params"] = inner
    return out


def layout_alias_texts(text: str) -> dict[str, str]:
    """{'#blocked1': '#ttg.blocked<{...}>'}: each layout alias of a TTGIR and the attribute
    text it stands for (what linear_bases and `kx layout --from` resolve aliases with)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#") and (m := _ALIAS_RE.match(line.strip())):
            out[m.group(1)] = line.split("=", 1)[1].strip()
    return out


def layout_aliases(text: str) -> dict[str, dict[str, Any]]:
    """{'#blocked': {'kind': 'blocked', 'sizePerThread': [...], ...}, '#mma': {'kind': 'nvidia_mma', ...}}"""
    out: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            continue
        m = _ALIAS_RE.match(line.strip())
        if m:
            layout = parse_layout(line.split("=", 1)[1].strip())
            if layout is not None:
                out[m.group(1)] = layout
    return out


# Example: "%52 = ttg.convert_layout %51 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked1> loc(#loc40)"
_CONVERT_RE = re.compile(r"\b(?:ttg|triton_gpu)\.convert_layout\b.*?:\s*(tensor<.*?>)\s*->\s*(tensor<.*)$")


def matching_close(text: str, start: int, opening: str = "<", closing: str = ">") -> int:
    """The index of the bracket closing the one at `start` ('tensor<64x#ttg.x<{...}>>': the
    last '>'), or len(text) when it is never closed. Brackets inside double-quoted strings
    (with backslash escapes, as MLIR writes them: `loc("a(b"(#loc1))`) do not count."""
    depth = 0
    for i, ch in _unquoted(text, start):
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _tensor_encoding(tensor_type: str) -> str | None:
    """The encoding of 'tensor<64x64xf32, #mma>' ('#mma'), of an inline one too."""
    start = tensor_type.find("<")
    if start == -1:
        return None
    end = matching_close(tensor_type, start)
    if end == len(tensor_type):
        return None
    parts = split_top_level(tensor_type[start + 1 : end])
    return parts[-1] if len(parts) > 1 else None


def convert_layouts(text: str) -> list[tuple[str, str]]:
    """[(src_encoding, dst_encoding)] for every ttg.convert_layout."""
    out = []
    for line in text.splitlines():
        m = _CONVERT_RE.search(line)
        if not m:
            continue
        src, dst = _tensor_encoding(m.group(1)), _tensor_encoding(m.group(2))
        if src and dst:
            out.append((src, dst))
    return out


# ---------------------------------------------------------------- PTX / LLVM

_PTX_KINDS = {
    "mma": r"\b((?:mma|wgmma\.mma_async)\.[\w.]+)",
    "ldmatrix": r"\b(ldmatrix\.[\w.]+)",
    "cp_async": r"\b(cp\.async\.[\w.]+|cp\.async\.bulk[\w.]*)",
    "barrier": r"\b(bar\.sync|barrier\.sync|mbarrier\.[\w.]+)",
    "global_vec": r"\b((?:ld|st)\.global(?:\.\w+)*\.v\d\.\w+)",
}
# The same patterns without the leading \b: a pattern that starts with literal text lets
# the regex engine jump from candidate to candidate (ten times faster on a 10 MB LLVM IR);
# the word boundary is then checked on the character before each match.
# The drill's patterns (_PTX_KINDS), each alternation split into patterns that start with
# literal text: the regex engine then jumps from candidate to candidate instead of trying
# every position (ten times faster on a 10 MB LLVM IR). The leading \b is checked on the
# character before each match. Same answers.
_PTX_KIND_FAST = {
    "mma": (re.compile(r"mma\.[\w.]+"), re.compile(r"wgmma\.mma_async\.[\w.]+")),
    "ldmatrix": (re.compile(r"ldmatrix\.[\w.]+"),),
    "cp_async": (re.compile(r"cp\.async\.[\w.]+"),),
    "barrier": (re.compile(r"bar\.sync"), re.compile(r"barrier\.sync"), re.compile(r"mbarrier\.[\w.]+")),
    "global_vec": (
        re.compile(r"ld\.global(?:\.\w+)*\.v\d\.\w+"),
        re.compile(r"st\.global(?:\.\w+)*\.v\d\.\w+"),
    ),
}


def _at_word_start(text: str, pos: int) -> bool:
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_")


def ptx_instructions(text: str) -> dict[str, Counter]:
    """{'mma': Counter({'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32': 2}), 'ldmatrix': ..., ...}
    Works on PTX and on LLVM IR (Triton emits these as inline asm strings there)."""
    out = {}
    for kind, patterns in _PTX_KIND_FAST.items():
        counts: Counter = Counter()
        for pattern in patterns:
            counts.update(m.group(0) for m in pattern.finditer(text) if _at_word_start(text, m.start()))
        out[kind] = counts
    return out


# Example: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"
_SHAPE_RE = re.compile(r"\.m(\d+)n(\d+)k(\d+)\b")


def mma_shape(instr: str) -> tuple[int, int, int] | None:
    """'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' -> (16, 8, 16); None if no shape."""
    m = _SHAPE_RE.search(instr)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


# ---------------------------------------------------------------- concepts per stage
# Each concept in every stage's spelling: MLIR, LLVM IR, PTX, SASS (upper case, e.g.
# "/*0270*/ LDGSTS.E.BYPASS.LTC128B.128 [R5], desc[UR6][R2.64] ;") and AMDGCN (e.g.
# "v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]"), so a concept that is still
# there at SASS is not reported as vanished.
CONCEPTS = {
    "program_id": r"tt\.get_program_id|ctaid|SR_CTAID|workgroup_id|workgroup\.id",
    "block_tensor": r"tensor<",
    "pointer_tensor": r"tensor<[^>]*!tt\.ptr",
    "layout_encoding": r"#ttg\.(blocked|nvidia_mma|slice|dot_op|amd_mfma|amd_wmma)|, #\w+>",
    "shared_memory": (
        r"ttg\.local_alloc|memdesc|addrspace\(3\)|\.shared"
        r"|\b(?:LDS|STS|LDSM|STSM|ATOMS)\b|\bds_(?:read|write|load|store|bpermute)"
    ),
    "async_copy": (
        r"async_copy|cp\.async|async_tma|\bLDGSTS\b|\bUTMALDG\b|\bUBLKCP\b|\bUTMAPF\b"
        r"|global_load_lds|buffer_load_\w+[^\n]*\blds\b"
    ),
    "mma_instruction": (
        r"mma\.sync|wgmma|ldmatrix|v_mfma|v_wmma|(?:rocdl|amdgcn)\.(?:mfma|wmma)"
        r"|\b(?:HGMMA|HMMA|IMMA|DMMA|QGMMA|IGMMA|BGMMA|UTCHMMA|UTCQMMA)\b"
    ),
    "barrier": r"barrier|bar\.sync|\bBAR\b|\bSYNCS\b|s_barrier",
    "thread_id": r"tid\.x|%tid|SR_TID|workitem\.id|workitem_id",
    "virtual_registers": r"\.reg\s+\.",
    "high_level_dot": r"tt\.dot\b",
}


def _top_level_alternatives(pattern: str) -> list[str]:
    """'a|b(c|d)|e' -> ['a', 'b(c|d)', 'e']."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


# Each concept's alternatives searched one by one: each starts with literal text, which
# the regex engine finds fast; the whole alternation would be tried at every position.
_CONCEPT_RES = {k: [re.compile(a) for a in _top_level_alternatives(v)] for k, v in CONCEPTS.items()}


def concepts(text: str) -> set[str]:
    """The concepts (keys of CONCEPTS) a stage's text shows."""
    return {name for name, patterns in _CONCEPT_RES.items() if any(p.search(text) for p in patterns)}


def concept_diff(stages: list[tuple[str, str]]) -> list[tuple[str, str, list[str], list[str]]]:
    """stages: ordered list of (name, text). Returns [(from, to, appeared, disappeared)]."""
    seen = [(name, concepts(text)) for name, text in stages]
    return [(a, b, sorted(cb - ca), sorted(ca - cb)) for (a, ca), (b, cb) in zip(seen, seen[1:])]


# ---------------------------------------------------------------- the GPU half


def dump_stages(compiled_kernel: Any) -> dict[str, str]:
    """On a CUDA machine: compiled = kernel[grid](...); dump_stages(compiled) -> {stage: text}.
    Also takes kx's own CompiledKernel (its `stages`)."""
    asm = getattr(compiled_kernel, "asm", None)
    if asm is None:
        asm = getattr(compiled_kernel, "stages", {})
    return {k: asm[k] for k in compiler_stages() if k in asm}
