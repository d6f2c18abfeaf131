"""The seed's correctness rules for CPU kernels (`cpu_kernel_authoring.txt`, "Correctness
Constraints"), as static checks of C++ source with file and line: `kx check FILE.cpp`.

- unaligned_simd_load: an aligned load/store intrinsic (`_mm256_load_ps`) on data kx
  cannot prove aligned; the unaligned form (`_mm256_loadu_ps`) is the rule.
- vector_width_remainder: a loop that steps by a vector width with SIMD intrinsics and no
  scalar tail loop, masked operation or divisibility check after it; or one whose
  condition (`i < n`) lets its last step read past the end.
- separate_translation_units: a runtime dispatcher (cpuid) and SIMD code in one file, or
  two ISA tiers (`avx2` and `avx512` namespaces) in one file: flags of one tier leak into
  the other's code.
- runtime dispatch: SIMD code with no cpuid check in its folder; a cpuid check without
  the OS-support (XCR0 through xgetbv) check.
- registration: a file that includes torch's extension headers but registers nothing
  (TORCH_LIBRARY / PYBIND11_MODULE), or a folder where no file registers the op.

These are text checks (comments and strings are blanked first), the way the seed's
validator reads a kernel; each message names the rule."""

from __future__ import annotations

import os
import re

from kx_core.cpu.targets import CPP_FILES
from kx_core.ir.anatomy import matching_close
from kx_core.records.results import Diagnostic

# Example: "_mm256_load_ps(a + i)", "_mm512_store_si512(p, v)", "_mm_load_ps(x)"
_ALIGNED_RE = re.compile(r"\b(_mm(?:256|512)?_(?:load|store|stream)_(?:ps|pd|si(?:128|256|512)|epi\d+))\s*\(")
# Example: "for (; i + 8 <= n; i += 8) {", "for (int64_t j = 0; j < n; j += VEC) {"
_FOR_RE = re.compile(r"\bfor\s*\(")
# Example: "i += 8", "j += VEC_ELEM_NUM", "i = i + 16"
_STEP_RE = re.compile(r"(\w+)\s*\+=\s*(\w+)|(\w+)\s*=\s*\1\s*\+\s*(\w+)")
_SIMD_RE = re.compile(r"\b_mm(?:256|512)?_\w+\s*\(")
_MASKED_RE = re.compile(r"\b_mm(?:256|512)?_mask\w*|maskload|maskstore|__mmask\d+")
# Example: '__builtin_cpu_supports("avx2")', "__get_cpuid(1, &a, &b, &c, &d)", "__cpuid_count(7, 0, ...)"
_DISPATCH_RE = re.compile(
    r"__builtin_cpu_supports|__get_cpuid(?:_count)?|__cpuid(?:_count)?\b|_may_i_use_cpu_feature"
)
_XGETBV_RE = re.compile(r"\b_?xgetbv\b|_xgetbv")
_TORCH_INCLUDE_RE = re.compile(r'#\s*include\s*[<"]torch/(?:extension|torch|library)\.h[>"]')
_REGISTER_RE = re.compile(
    r"\bTORCH_LIBRARY(?:_IMPL|_FRAGMENT)?\s*\(|\bPYBIND11_MODULE\s*\(|\bREGISTER_EXTENSION\s*\("
)
_NAMESPACE_RE = re.compile(r"\bnamespace\s+(?:[\w:]+::)?(avx2|avx512|avx512f|amx)\b")


def blank_comments_and_strings(text: str) -> str:
    """The text with comments and string literals replaced by spaces (newlines kept),
    so positions and line numbers stay those of the file."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j == -1 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j == -1 else j + 2
        elif text[i] == '"' and not text.startswith("#include", text.rfind("\n", 0, i) + 1):
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            out.append(text[i])
            i += 1
            continue
        out.append("".join(c if c == "\n" else " " for c in text[i:j]))
        i = j
    return "".join(out)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def check_file(path: str) -> list[Diagnostic]:
    """Every rule the file (and its folder, for dispatch and registration) breaks."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    code = blank_comments_and_strings(raw)
    out: list[Diagnostic] = []

    def report(rule: str, pos: int, message: str) -> None:
        line, col = _line_col(code, pos)
        out.append(Diagnostic("rule", f"{rule}: {message}", path, line, col))

    for m in _ALIGNED_RE.finditer(code):
        name = m.group(1)
        fixed = re.sub(r"_(load|store|stream)_", lambda x: f"_{x.group(1)}u_", name, count=1)
        report(
            "unaligned_simd_load",
            m.start(),
            f"{name} faults on unaligned data; use {fixed} unless the data is provably aligned",
        )
    out += _tail_checks(code, path)
    simd = _SIMD_RE.search(code)
    dispatch = _DISPATCH_RE.search(code)
    if simd and dispatch:
        report(
            "separate_translation_units",
            dispatch.start(),
            "a runtime dispatcher and SIMD code in one file: the SIMD flags this file needs would "
            "let the compiler use those instructions in the dispatcher too; put each tier in its own .cpp",
        )
    tiers = sorted({m.group(1) for m in _NAMESPACE_RE.finditer(code)})
    if len(tiers) > 1:
        report(
            "separate_translation_units",
            _NAMESPACE_RE.search(code).start(),
            f"ISA tiers {', '.join(tiers)} in one file: each tier needs its own translation unit and flags",
        )
    # xgetbv is often inline assembly, inside a string: it is looked for in the raw texts
    raw_folder = _folder_texts(path)
    folder = {name: blank_comments_and_strings(text) for name, text in raw_folder.items()}
    if simd and not any(_DISPATCH_RE.search(t) for t in folder.values()):
        report(
            "os_support_check",
            simd.start(),
            "SIMD code, and no runtime CPU check (cpuid) in its folder: it runs, or faults, on any CPU",
        )
    if dispatch and not any(_XGETBV_RE.search(t) for t in raw_folder.values()):
        report(
            "os_support_check",
            dispatch.start(),
            "cpuid without xgetbv: the OS may not save AVX state (WSL1, some VMs): check XCR0 too",
        )
    torch = _TORCH_INCLUDE_RE.search(code) or _TORCH_INCLUDE_RE.search(raw)
    if torch and not _REGISTER_RE.search(code) and not any(_REGISTER_RE.search(t) for t in folder.values()):
        report(
            "registration",
            torch.start(),
            "includes torch's extension headers, and no file in its folder registers the op (TORCH_LIBRARY or PYBIND11_MODULE)",
        )
    return sorted(out, key=lambda d: (d.line or 0, d.column or 0))


def _folder_texts(path: str) -> dict[str, str]:
    """The C++ files beside `path` (itself included), as they are."""
    folder = os.path.dirname(os.path.abspath(path))
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(CPP_FILES):
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    out[name] = f.read()
            except OSError:
                continue
    return out


def _tail_checks(code: str, path: str) -> list[Diagnostic]:
    """vector_width_remainder for every SIMD loop that steps by more than one."""
    out = []
    for m in _FOR_RE.finditer(code):
        open_paren = m.end() - 1
        close_paren = matching_close(code, open_paren, "(", ")")
        header = code[open_paren + 1 : close_paren]
        parts = header.split(";")
        if len(parts) != 3:
            continue
        step = _STEP_RE.search(parts[2])
        if not step:
            continue
        var, width = (step.group(1), step.group(2)) if step.group(1) else (step.group(3), step.group(4))
        brace = code.find("{", close_paren)
        if brace == -1 or code[close_paren + 1 : brace].strip():
            continue
        end = matching_close(code, brace, "{", "}")
        body = code[brace:end]
        if not _SIMD_RE.search(body) or width in ("1",):
            continue
        line, col = _line_col(code, m.start())
        cond = parts[1]
        bound = re.search(rf"\b{re.escape(var)}\s*<\s*(\w+)", cond)
        # a bound rounded down to the width (`full = n - n % 16`, `n / 16 * 16`, `n & ~15`)
        rounded = bound and re.search(
            rf"\b{re.escape(bound.group(1))}\s*=[^;]*(?:%\s*{re.escape(width)}\b|/\s*{re.escape(width)}\s*\*|&\s*~)",
            code[: m.start()],
        )
        if bound and "+" not in cond and not rounded:
            out.append(
                Diagnostic(
                    "rule",
                    f"vector_width_remainder: the loop steps {var} by {width} but tests `{cond.strip()}`: its "
                    f"last step reads past the end unless n is a multiple of {width} (test `{var} + {width} <= n`)",
                    path,
                    line,
                    col,
                )
            )
            continue
        after = code[end : end + 1500]
        tail = re.search(rf"\bfor\s*\(\s*;?\s*[^;]*;\s*{re.escape(var)}\s*<", after) or _MASKED_RE.search(
            after
        )
        checked = re.search(rf"%\s*{re.escape(width)}\b", code[: m.start()])
        if not tail and not checked:
            out.append(
                Diagnostic(
                    "rule",
                    f"vector_width_remainder: a SIMD loop stepping {var} by {width} with no scalar tail loop, "
                    f"masked operation or divisibility check after it: the last n % {width} elements are never computed",
                    path,
                    line,
                    col,
                )
            )
    return out
