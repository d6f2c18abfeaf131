"""`--filter` for a C++ kernel's output (`kx compile|stages FILE.cpp`): Compiler Explorer's
filters, on by default as there.

    --filter all                      every filter (the default)
    --filter none                     the compiler's output as it is
    --filter no-library               all but one (here: show the library functions too)
    --filter library,demangle         exactly these

Names: library (functions defined outside the user's files, by the DWARF file of their
definition), directives (.cfi_*, .p2align, debug labels), comments (comment-only lines),
demangle (C++ names), locations (.loc/.file), labels (local labels nothing names)."""

from __future__ import annotations

import argparse
from dataclasses import replace

from kx_core.ir.display_filters import DisplayFilters, filter_stage, hidden_by_library_filter
from kx_core.records.results import CompileResult

# --filter name -> DisplayFilters field
FILTER_FIELDS = {
    "library": "hide_library_functions",
    "directives": "hide_directives",
    "comments": "hide_comment_lines",
    "demangle": "demangle",
    "locations": "hide_locations",
    "labels": "hide_unused_labels",
}


def filters_from(spec: str) -> DisplayFilters:
    """The filters a `--filter` value asks for (argparse's type: a bad name is a usage error)."""
    on = dict.fromkeys(FILTER_FIELDS, True)
    words = [w.strip().lower() for w in spec.split(",") if w.strip()]
    if any(w in FILTER_FIELDS for w in words):  # names given: exactly those
        on = dict.fromkeys(FILTER_FIELDS, False)
    for word in words:
        name = word.removeprefix("no-")
        if word in ("all", "none"):
            on = dict.fromkeys(FILTER_FIELDS, word == "all")
        elif name in FILTER_FIELDS:
            on[name] = not word.startswith("no-")
        else:
            known = ", ".join(["all", "none", *FILTER_FIELDS])
            raise argparse.ArgumentTypeError(f"unknown filter {word!r}: use {known} (or no-NAME)")
    return DisplayFilters(**{FILTER_FIELDS[name]: value for name, value in on.items()})


def add_filter_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--filter",
        type=filters_from,
        default=DisplayFilters(),
        metavar="NAMES",
        help="C++ kernels: Compiler Explorer's filters, comma-separated: "
        "all (default), none, or library, directives, comments, demangle, locations, labels; no-NAME turns one off",
    )


def filtered_result(result: CompileResult, filters: DisplayFilters) -> tuple[CompileResult, int]:
    """The result as the filters show it (library functions dropped, the assembly filtered),
    and how many functions were hidden."""
    kept = [k for k in result.kernels if not hidden_by_library_filter(k, filters)]
    kernels = []
    for k in kept:
        stages = dict(k.stages)
        if "asm" in stages:
            stages["asm"] = filter_stage(stages["asm"], "gas", filters, k.demangled).text
        kernels.append(replace(k, stages=stages))
    return replace(result, kernels=tuple(kernels)), len(result.kernels) - len(kept)


def hidden_note(hidden: int) -> str:
    """The line that says how many functions the library filter hid."""
    from kx_core.base.words import counted

    return f"{counted(hidden, 'library function')} hidden (--filter no-library shows them)"
