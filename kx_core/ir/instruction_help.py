"""One line of help per PTX and SASS instruction, as a hover over a stage line shows it.

Written here for the instructions kx meets in its own kernels (the examples compiled for
sm_90: tests/ir/test_instruction_help.py checks that every one has a line). A line's
opcode is looked up by its longest known prefix of dot-separated parts
(`cp.async.cg.shared.global` -> `cp.async`, `IMAD.WIDE.U32` -> `IMAD.WIDE` -> `IMAD`),
and the help names what the suffixes mean where they matter.

    help_for_line("ptx", "    @%p1 ld.global.v4.b32 { %r1, ... }, [ %rd1 + 0 ];")
"""

from __future__ import annotations

import re

PTX_HELP = {
    "add": "add: a + b (.f32 floating point, .s32/.s64 integer)",
    "sub": "sub: a - b",
    "mul": "mul: a * b (.lo: the low half of the product, .wide: the full double-width product)",
    "mad": "mad: a * b + c (.lo low half, .wide double width); the address arithmetic of loads",
    "fma": "fma: fused a * b + c with one rounding (.rn: round to nearest even)",
    "div": "div: a / b (.full.f32: full-range approximate division; .s32: integer, slow)",
    "rem": "rem: the remainder of an integer division (slow: a sequence of instructions)",
    "max": "max: the larger of a and b",
    "min": "min: the smaller of a and b",
    "abs": "abs: |a|",
    "neg": "neg: -a",
    "and": "and: bitwise AND (.pred: of predicates)",
    "or": "or: bitwise OR",
    "xor": "xor: bitwise exclusive OR (a butterfly's lane mask in reductions)",
    "not": "not: bitwise NOT",
    "shl": "shl: shift left",
    "shr": "shr: shift right (.s32 arithmetic, .u32 logical)",
    "bfe": "bfe: extract a bit field (start, length) of a register",
    "mov": "mov: copy a register, a constant or a special register (%tid, %ctaid)",
    "selp": "selp: select a or b by a predicate (a branch-free if)",
    "setp": "setp: compare a and b, set a predicate (.lt, .gt, .eq, .ne: the comparison)",
    "cvt": "cvt: convert between types (.rn: round to nearest; f16x2.f32 packs two floats into halves)",
    "ld": "ld: load (.global from device memory, .shared from shared memory, .param a kernel argument; "
    ".v2/.v4: a vector of 2 or 4 per thread)",
    "st": "st: store (.global to device memory, .shared::cta to this CTA's shared memory; .v4: 4 values)",
    "ld.global": "ld.global: load from device (global) memory; .v4.b32 moves 16 bytes per thread (coalesced "
    "when neighbouring threads load neighbouring addresses)",
    "st.global": "st.global: store to device (global) memory; .v4 stores 16 bytes per thread",
    "ld.shared": "ld.shared: load from this CTA's shared memory (bank conflicts serialise it)",
    "ld.param": "ld.param: read a kernel argument",
    "cp.async": "cp.async: copy global -> shared memory without registers, asynchronously (.cg: cache in L2 "
    "only); software pipelining's loads",
    "cp.async.commit_group": "cp.async.commit_group: close the current group of cp.async copies",
    "cp.async.wait_group": "cp.async.wait_group N: wait until at most N groups of cp.async copies are pending",
    "ldmatrix": "ldmatrix: load 8x8 matrix tiles from shared memory into the registers an MMA expects",
    "wgmma.mma_async": "wgmma.mma_async: a warpgroup (4 warps) matrix multiply-accumulate on Hopper's tensor "
    "cores, operands from shared memory (mMnNkK: the tile shape; f32.f16.f16: accumulate f32 from f16)",
    "wgmma.fence": "wgmma.fence: order register accesses before the warpgroup MMAs that follow",
    "wgmma.commit_group": "wgmma.commit_group: close the current group of wgmma operations",
    "wgmma.wait_group": "wgmma.wait_group N: wait until at most N groups of wgmma operations are pending",
    "mma": "mma.sync: a warp's matrix multiply-accumulate on tensor cores (Ampere and later)",
    "bar": "bar.sync: barrier: every thread of the CTA waits here (__syncthreads)",
    "fence.proxy.async": "fence.proxy.async: order generic-proxy writes (st.shared) before async-proxy reads "
    "(wgmma, TMA) of the same shared memory",
    "shfl": "shfl.sync: exchange registers between the lanes of a warp (.bfly: butterfly, .idx: from one lane)",
    "ex2": "ex2.approx: 2^x by the special function unit (tl.exp lowers to x * log2(e) then ex2)",
    "rcp": "rcp: 1 / x, approximate",
    "sqrt": "sqrt: square root",
    "rsqrt": "rsqrt: 1 / sqrt(x), approximate",
    "bra": "bra: branch (with a predicate: a conditional jump)",
    "ret": "ret: return from the kernel",
    "atom": "atom: atomic read-modify-write in global or shared memory",
    "red": "red: atomic reduction into memory without returning the old value",
}

SASS_HELP = {
    "LDG": "LDG: load from global memory (.E: 64-bit address; .128 / .64: 16 / 8 bytes per thread)",
    "STG": "STG: store to global memory (.128 / .64: 16 / 8 bytes per thread)",
    "LDS": "LDS: load from shared memory",
    "STS": "STS: store to shared memory (.128: 16 bytes per thread)",
    "LDSM": "LDSM: ldmatrix: 8x8 tiles from shared memory into MMA operand registers (.4: four tiles)",
    "LDGSTS": "LDGSTS: cp.async: global -> shared copy that bypasses registers (.BYPASS: not cached in L1)",
    "LDGDEPBAR": "LDGDEPBAR: close a group of LDGSTS copies (cp.async.commit_group)",
    "DEPBAR": "DEPBAR.LE SB0, N: wait until at most N groups of asynchronous copies are pending",
    "LDC": "LDC: load from the constant bank (kernel arguments, launch constants)",
    "ULDC": "ULDC: load a constant into a uniform register (one value for the whole warp)",
    "HGMMA": "HGMMA: Hopper warpgroup MMA (wgmma) on tensor cores: .64xNxK shape, operands from shared memory",
    "HMMA": "HMMA: a warp's tensor-core matrix multiply-accumulate (mma.sync) in half precision",
    "HFMA2": "HFMA2: two half-precision fused multiply-adds at once (.MMA: issued on the tensor-core pipe)",
    "WARPGROUP.ARRIVE": "WARPGROUP.ARRIVE: wgmma.fence: the warpgroup's registers are ready for its MMAs",
    "WARPGROUP.DEPBAR": "WARPGROUP.DEPBAR.LE gsb0, N: wgmma.wait_group: wait for the warpgroup's MMAs",
    "FENCE.VIEW.ASYNC": "FENCE.VIEW.ASYNC: fence.proxy.async: shared-memory writes visible to async units",
    "MEMBAR": "MEMBAR: memory barrier (.CTA: for this CTA's threads)",
    "BAR": "BAR.SYNC: barrier for the CTA's threads (__syncthreads; .DEFER_BLOCKING: the usual form)",
    "FFMA": "FFMA: fp32 fused multiply-add",
    "FADD": "FADD: fp32 add",
    "FMUL": "FMUL: fp32 multiply",
    "FMNMX": "FMNMX: fp32 min or max (a predicate operand chooses which)",
    "FSETP": "FSETP: fp32 compare, set a predicate (.GT, .GEU: the comparison; .AND: combined with another)",
    "FSEL": "FSEL: select one of two fp32 values by a predicate",
    "MUFU": "MUFU: the special function unit (.EX2: 2^x, .RCP: 1/x, .RSQ, .LG2, .SIN, .COS)",
    "F2FP": "F2FP: convert and pack two fp32 into a pair of f16 (.PACK_AB)",
    "F2F": "F2F: convert between floating-point widths",
    "F2I": "F2I: float to integer conversion",
    "I2F": "I2F: integer to float conversion (.RP: round toward +inf, integer division's reciprocal)",
    "IMAD": "IMAD: integer multiply-add (.WIDE: 64-bit result, .HI: high half, .MOV/.SHL/.IADD: used as a "
    "move, shift or add)",
    "IADD3": "IADD3: add three integers (.X: with the carry, the high half of 64-bit address arithmetic)",
    "VIADD": "VIADD: integer add of a register and an immediate",
    "IABS": "IABS: integer absolute value",
    "ISETP": "ISETP: integer compare, set a predicate (.LT/.GE/.NE ...; .U32: unsigned; .AND: combined)",
    "LEA": "LEA: a + (b << shift): address arithmetic (.HI/.X: the high half of a 64-bit address)",
    "LOP3": "LOP3.LUT: any logic function of three operands, by an 8-bit lookup table",
    "PLOP3": "PLOP3.LUT: any logic function of three predicates",
    "SHF": "SHF: funnel shift (.L left, .R right; .HI: of the high word; .S32/.U32: arithmetic or logical)",
    "SEL": "SEL: select one of two integer values by a predicate",
    "SGXT": "SGXT: sign-extend (or zero-extend, .U32) a bit field",
    "MOV": "MOV: copy a register or an immediate",
    "CS2R": "CS2R: read a special register fast (often: zero two registers, SRZ)",
    "S2R": "S2R: read a special register (thread id, CTA id, lane id)",
    "S2UR": "S2UR: read a special register into a uniform register",
    "R2UR": "R2UR: copy a register to a uniform register (a value the whole warp shares)",
    "P2R": "P2R: pack predicates into a register",
    "SHFL": "SHFL: exchange registers between lanes of a warp (.BFLY: butterfly, a reduction's step)",
    "NOP": "NOP: no operation (padding, alignment)",
    "BRA": "BRA: branch",
    "EXIT": "EXIT: the thread ends",
    "UIADD3": "UIADD3: uniform (one per warp) add of three integers (.64: 64-bit; .X: with carry)",
    "UIMAD": "UIMAD: uniform integer multiply-add (.WIDE: 64-bit result)",
    "UISETP": "UISETP: uniform integer compare, set a uniform predicate",
    "ULEA": "ULEA: uniform a + (b << shift) (.HI/.X: high half)",
    "ULOP3": "ULOP3.LUT: uniform three-operand logic function",
    "UMOV": "UMOV: uniform move",
    "USEL": "USEL: uniform select by a predicate",
    "USGXT": "USGXT: uniform sign/zero extension of a bit field",
    "USHF": "USHF: uniform funnel shift",
}

# Example PTX line: "	@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];"
_PTX_OP_RE = re.compile(r"^\s*(?:@!?%\w+\s+)?(?P<op>[a-z][a-z0-9_.:]*)\b")
# Example SASS line: "        /*0090*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
_SASS_OP_RE = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?(?P<op>[A-Z][A-Z0-9_.]*)")


def opcode(syntax: str, line: str) -> str | None:
    """The instruction of a PTX or SASS line (None for directives, labels, comments)."""
    if syntax == "sass":
        m = _SASS_OP_RE.match(line)
    elif syntax == "ptx":
        text = line.strip()
        if not text or text.startswith(("//", ".", "{", "}", "$", ")")) or text.endswith(":"):
            return None
        m = _PTX_OP_RE.match(line)
    else:
        return None
    return m.group("op").rstrip(";") if m else None


def help_for(syntax: str, op: str) -> str | None:
    """The help of an opcode by its longest known prefix of dot-separated parts."""
    table = SASS_HELP if syntax == "sass" else PTX_HELP
    parts = op.split(".")
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in table:
            return table[key]
    return None


def help_for_line(syntax: str, line: str) -> str | None:
    op = opcode(syntax, line)
    return help_for(syntax, op) if op else None
