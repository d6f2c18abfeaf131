"""Where each function of a C++ compile is defined: the DWARF file of its definition, read
from the debug info `g++ -S -g -dA` writes into the assembly as annotated data.

A function's code is a `DW_TAG_subprogram` DIE with `DW_AT_low_pc` (its `.LFBn` label);
its `DW_AT_decl_file` is on that DIE, or on the DIE its `DW_AT_specification` (a member
function's declaration in its class) or `DW_AT_abstract_origin` (an inline function's
abstract instance) names, followed until one has it. A function with no declaration of
its own (GCC's OpenMP outlined `._omp_fn.N` bodies are artificial) takes the file of its
first `.loc`, the line table's word for where its code starts.

Compiler Explorer's "library functions" filter hides what this module calls library code:
a function defined outside the user's files (torch, c10, pybind11, libstdc++ headers), by
that file, not by a name pattern."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from kx_core.cpu.assembly import file_table

# Example: "\t.uleb128 0x320\t# (DIE (0x24552c) DW_TAG_subprogram)"
_DIE_RE = re.compile(r"#\s*\(DIE \((0x[0-9a-f]+)\) (DW_TAG_\w+)\)")
# Examples: "\t.byte\t0x7\t# DW_AT_decl_file (/work/k/silu_mul_ext.cpp)",
# "\t\t\t# DW_AT_decl_file (2, /usr/include/c++/12/bits/basic_string.h)" (implicit_const)
_DECL_FILE_RE = re.compile(r"#\s*DW_AT_decl_file \((?:\d+, )?([^)]*)\)")
# Examples: "\t.long\t0x1b3a4b\t# DW_AT_specification", "\t.long\t0x48aa5\t# DW_AT_abstract_origin"
_REF_RE = re.compile(r"\.long\s+(0x[0-9a-f]+)\s+#\s*DW_AT_(?:specification|abstract_origin)\b")
# Examples: '\t.long\t.LASF9602\t# DW_AT_name: "invoke_parallel<at::parallel_for<...> >"',
# '\t.long\t.LASF9603\t# DW_AT_linkage_name: "_ZN2at8internal15invoke_parallelI..."'
_NAME_RE = re.compile(r'#\s*DW_AT_(name|linkage_name): "(.*)"\s*$')
# Example: "\t.quad\t.LFB87337\t# DW_AT_low_pc"
_LOW_PC_RE = re.compile(r"\.quad\s+(\.LFB\d+)\s+#\s*DW_AT_low_pc")
# Example: ".LFB87337:"
_LFB_LABEL_RE = re.compile(r"^(\.LFB\d+):")
# Example: "_ZN6kx_ext8silu_mulEPKfPfllb:" (a function's own label)
_FUNC_LABEL_RE = re.compile(r"^([A-Za-z_][\w.$]*):\s*$")
# Example: "\t.type\t_ZN6kx_ext8silu_mulEPKfPfllb, @function"
_TYPE_FUNC_RE = re.compile(r"^\s*\.type\s+([\w.$]+),\s*@function")
# Example: "\t.loc 7 37 40"
_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s")
# Examples: "_Z12silu_and_mulN2at6TensorEb.cold", "_ZN6kx_ext8silu_mulEPKfPfllb._omp_fn.0"
_PART_RE = re.compile(r"(?:\.cold|\._omp_fn\.\d+)+$")
# Examples: "_Z3fooi.constprop.0.isra.0", "_ZN2at8internal15invoke_parallelI...EvlllSQ_._omp_fn.0"
_CLONE_RE = re.compile(r"(?:\.(?:cold|constprop|isra|part|_omp_fn)(?:\.\d+)?)+$")


@dataclass(frozen=True)
class Definition:
    symbol: str  # the mangled name, as the assembly has it
    file: str | None  # the file it is defined in (absolute when the compile said so)
    how: str  # "DW_AT_decl_file" or "line table" (no declaration: the first .loc's file)
    # DWARF's DW_AT_name for it ("invoke_parallel<at::parallel_for<...> >", no namespace
    # or parameters): the readable name when c++filt cannot demangle the symbol
    dwarf_name: str | None = None


@dataclass
class _Die:
    file: str | None = None
    ref: str | None = None
    low_pc: str | None = None
    name: str | None = None
    linkage: str | None = None


def _dies(lines: list[str]) -> dict[str, _Die]:
    """DIE offset -> the attributes this module reads, for subprogram DIEs."""
    out: dict[str, _Die] = {}
    die: _Die | None = None
    for raw in lines:
        if "DW_" not in raw:
            continue
        m = _DIE_RE.search(raw)
        if m:
            die = out.setdefault(m.group(1), _Die()) if m.group(2) == "DW_TAG_subprogram" else None
            continue
        if die is None:
            continue
        if (a := _DECL_FILE_RE.search(raw)) is not None:
            die.file = a.group(1)
        elif (a := _REF_RE.search(raw)) is not None:
            die.ref = a.group(1)
        elif (a := _LOW_PC_RE.search(raw)) is not None:
            die.low_pc = a.group(1)
        elif (a := _NAME_RE.search(raw)) is not None:
            if a.group(1) == "linkage_name":
                die.linkage = a.group(2)
            else:
                die.name = a.group(2)
    return out


def _decl_file(dies: dict[str, _Die], die: _Die) -> str | None:
    seen: set[int] = set()
    while die.file is None and die.ref in dies and id(die) not in seen:
        seen.add(id(die))
        die = dies[die.ref]
    return die.file


def _name(dies: dict[str, _Die], die: _Die) -> str | None:
    seen: set[int] = set()
    while die.name is None and die.ref in dies and id(die) not in seen:
        seen.add(id(die))
        die = dies[die.ref]
    return die.name


def function_definitions(asm: str) -> dict[str, Definition]:
    """Every function of a `g++ -S -g -dA` output -> where it is defined."""
    lines = asm.split("\n")
    dies = _dies(lines)
    by_low_pc = {d.low_pc: d for d in dies.values() if d.low_pc}
    files = file_table(lines)  # the line table assembly.split_functions reads too
    functions = {m.group(1) for raw in lines if (m := _TYPE_FUNC_RE.match(raw))}
    out: dict[str, Definition] = {}
    symbol: str | None = None
    for raw in lines:
        label = _FUNC_LABEL_RE.match(raw)
        if label and label.group(1) in functions:
            symbol = label.group(1)
            continue
        if symbol is None:
            continue
        lfb = _LFB_LABEL_RE.match(raw)
        if lfb and lfb.group(1) in by_low_pc:
            file = _decl_file(dies, by_low_pc[lfb.group(1)])
            if file is not None:
                die = by_low_pc[lfb.group(1)]
                out[symbol] = Definition(symbol, file, "DW_AT_decl_file", _name(dies, die))
                symbol = None
            continue
        loc = _LOC_RE.match(raw)
        if loc:  # no declaration to read: where the line table says its code starts
            out[symbol] = Definition(symbol, files.get(loc.group(1)), "line table")
            symbol = None
    for name in functions - out.keys():
        out[name] = Definition(name, None, "line table")
    # a linkage name is on the declaration or on the concrete DIE, the name on the
    # declaration: follow DW_AT_specification / abstract_origin for the name
    named = {d.linkage: name for d in dies.values() if d.linkage and (name := _name(dies, d))}
    # a function's own DIE names its clones too (`f.constprop.0` is f's code, and
    # `f._omp_fn.0` is f's OpenMP body even when only `f.constprop.0` is in the assembly)
    for symbol, d in out.items():
        if d.dwarf_name and d.how == "DW_AT_decl_file":
            named.setdefault(_CLONE_RE.sub("", symbol), d.dwarf_name)
    for name, definition in list(out.items()):
        parent = _CLONE_RE.sub("", name)
        if parent != name and parent in named:  # a clone: its function's name, said a clone
            out[name] = replace(definition, dwarf_name=f"{named[parent]} [clone {name[len(parent) :]}]")
        elif definition.dwarf_name is None and name in named:
            out[name] = replace(definition, dwarf_name=named[name])
    # a function's cold part and its OpenMP bodies are the function's own code, wherever
    # their first line comes from (a .cold part often starts in a destructor's header)
    for name in list(out):
        parent = _PART_RE.sub("", name)
        if parent != name and parent in out and out[parent].file is not None:
            out[name] = replace(out[name], file=out[parent].file, how=f"{out[parent].how} of {parent}")
    return out


# Python's own folders: a header there is a library's even when the user's folder holds
# the interpreter (a virtual environment inside the project)
_LIBRARY_PARTS = ("/site-packages/", "/dist-packages/", "/include/python")


def is_user_file(path: str | None, source: str) -> bool:
    """A file the user wrote: the opened file, or one in its folder (a header beside it),
    but not a library's header that happens to sit below that folder."""
    if not path:
        return False
    folder = os.path.dirname(os.path.realpath(source))
    real = os.path.realpath(path if os.path.isabs(path) else os.path.join(folder, path))
    if real == os.path.realpath(source):
        return True
    return real.startswith(folder + os.sep) and not any(part in real for part in _LIBRARY_PARTS)
