"""`kx open PATH`: what a real run recorded (a Triton cache or dump folder, a tritonparse
trace, plain or gzipped, an Inductor debug folder, a TORCH_TRACE log), shown like a
compile's result, or a Proton profile, shown as a profile (its kernels' times, samples
and hottest lines; `--beside BUILD` joins it to a build's kernels and stages); and `kx
compile ... --export tritonparse OUT.ndjson`, a capture written back as a trace
(kx_core.recorded).

    $ kx open ~/.triton/cache
    /home/me/.triton/cache  target cuda:90  triton 3.8.0
    kernel        status    grid  warps  stages  regs  spills  shared  compile s
    add_vectors   compiled  -     4      3       26    0       0       1.10
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from kx_core.cli import args as cli_args
from kx_core.records.backends import stage_names

EXPORT_FORMATS = ("tritonparse",)
# a trace's kernels whose stages (and so registers and spills) the table reads; past
# this, the table says how to read them (each is a line to decode and a PTX to assemble)
TABLE_STAGES_KERNELS = 64
# said when an Inductor record's module was not run (open_record's `trusted`)
NOT_RUN_NOTE = (
    "kx: {path}: its output module was not run (a record's code runs only with --trust): its kernels "
    "are listed from the module's text, without stages; `kx open --trust` compiles them by running the "
    "module under kx's capture, as `python output_code.py` would, so only for a record you trust"
)


def add_open_verb(sub) -> None:
    p = sub.add_parser(
        "open",
        help="a record of a real run: a Triton cache or dump folder, a tritonparse trace (.ndjson[.gz]), "
        "an Inductor debug folder (TORCH_COMPILE_DEBUG) or a TORCH_TRACE log (their output_code.py is "
        "compiled by kx under its capture, labelled so), a Proton profile (.hatchet)",
    )
    p.add_argument("path", help="the folder or trace file (its kind is read from its content)")
    p.add_argument("--kernel", help="only kernels of this name")
    p.add_argument("--stage", choices=stage_names(), help="print this stage of each kernel")
    p.add_argument("--json", action="store_true", help="the result as JSON, every stage included")
    p.add_argument("--out", metavar="DIR", help="write each stage as <kernel>.<ext>")
    p.add_argument(
        "--beside",
        metavar="BUILD",
        help="a Proton profile: join it to the kernels of BUILD (a record, or a kernel file kx compiles) "
        "and show the hot lines of their stages",
    )
    p.add_argument(
        "--top", type=cli_args.int_in(1), default=12, help="a profile's hottest lines per kernel (12)"
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="run the code an Inductor debug folder or TORCH_TRACE log holds (its output module, under "
        "kx's capture) to compile its kernels: only for a record you trust; without it they are listed "
        "from its text, nothing run",
    )


def add_export_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--export",
        nargs=2,
        metavar=("FORMAT", "OUT"),
        help="also write the capture as a record: 'tritonparse OUT.ndjson[.gz]' (a tritonparse trace; "
        "OUT a folder: a file in it named as tritonparse's parser expects)",
    )


def check_export(args: argparse.Namespace) -> str | None:
    """Why --export cannot be done as given (a message), or None."""
    if getattr(args, "export", None) and args.export[0] not in EXPORT_FORMATS:
        return f"--export {args.export[0]}: kx writes {', '.join(EXPORT_FORMATS)}"
    return None


def export_result(args: argparse.Namespace, result) -> int | None:
    """Write the --export record of a compile; an exit status when it could not."""
    import os

    from kx_core.recorded.trace_export import TRACE_PREFIX, export_tritonparse, trace_path

    out = trace_path(args.export[1])
    try:
        written = export_tritonparse(result, out)
    except ValueError as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    print(f"kx: {written} kernel(s) written to {out} as a tritonparse trace", file=sys.stderr)
    if not os.path.basename(out).startswith(TRACE_PREFIX):
        print(
            f"kx: tritonparse's parser reads files named {TRACE_PREFIX}*: name it so, or give a folder",
            file=sys.stderr,
        )
    return None


def open_command(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from kx_core.cli.result_output import format_result, result_json, stage_file_names, write_stages
    from kx_core.compile.artifacts.derived import with_derived
    from kx_core.recorded.open_record import (
        RECORD_NAMES,
        NotARecord,
        open_record,
        record_notes,
        with_record_stages,
    )

    wants_stages = bool(args.json or args.out or args.stage)
    try:
        opened = open_record(
            args.path, stages=wants_stages, progress=_progress_printer(args.path), trusted=args.trust
        )
    except NotARecord as e:  # RefusedRecord too: a FIFO, a device, a folder past its limits
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    table_note = ""
    if opened.index is not None and not wants_stages:
        # the table shows what --json shows: registers and spills come with the stages
        named = [k for k in opened.result.kernels if not args.kernel or k.name == args.kernel]
        if len(named) <= TABLE_STAGES_KERNELS:
            opened = with_record_stages(opened, args.kernel)
        else:
            table_note = (
                f"regs and spills: a table reads them for at most {TABLE_STAGES_KERNELS} kernels "
                f"(this trace has {len(named)}): --kernel NAME or --json reads them"
            )
    if opened.profile is not None:
        return profile_output(args, opened)
    if args.beside:
        print(
            "kx: --beside joins a Proton profile to a build; this is a " + RECORD_NAMES[opened.kind],
            file=sys.stderr,
        )
        return cli_args.EXIT_USAGE
    result = opened.result
    if args.kernel:
        kernels = tuple(k for k in result.kernels if k.name == args.kernel)
        if not kernels:
            names = ", ".join(sorted({k.name for k in result.kernels})) or "none"
            print(f"kx: no kernel {args.kernel!r} in {args.path} (its kernels: {names})", file=sys.stderr)
            return cli_args.EXIT_USAGE
        result = replace(result, kernels=kernels)
    if wants_stages:
        result = with_derived(result)  # SASS and ELF from a cubin the record holds, labelled derived
    if args.out:
        write_stages(result, args.out)
    if args.json:
        doc = result_json(result) | {"record": {"kind": opened.kind, "path": opened.path}}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.stage:
        shown = [k for k in result.kernels if args.stage in k.stages]
        for k, base in zip(shown, stage_file_names(shown)):
            derived = args.stage in (k.metadata.extra.get("derived_stages", ()) if k.metadata else ())
            if len(shown) > 1 or derived:
                print(f"// ===== {base}{' (derived by kx from the cubin)' if derived else ''} =====")
            print(k.stages[args.stage])
        if not shown:
            print(f"kx: no kernel of {args.path} has a {args.stage} stage", file=sys.stderr)
    else:
        print(f"{RECORD_NAMES[opened.kind]}: {len(result.kernels)} kernel(s)")
        print(format_result(result))
        notes = {n for k in result.kernels for n in record_notes(k)}
        for note in sorted(notes - {"its stages are read from the trace when it is selected"}):
            print(f"note: {note}")
        if table_note:
            print(f"note: {table_note}")
        if opened.contents:
            kinds = sorted(opened.contents.items(), key=lambda kv: (-kv[1], kv[0]))
            print(
                f"it holds {sum(opened.contents.values())} events: " + ", ".join(f"{k} {n}" for k, n in kinds)
            )
    for d in result.diagnostics if args.json or args.stage else ():
        print(f"kx: {d}", file=sys.stderr)
    if opened.code_not_run:
        print(NOT_RUN_NOTE.format(path=args.path), file=sys.stderr)
    return result.exit_status


def _progress_printer(path: str):
    """Where stderr is a terminal, a callback that keeps one line saying how far a large
    trace's first pass is (ScanProgress); None elsewhere (a pipe, a test)."""
    if not sys.stderr.isatty():
        return None
    from kx_core.base.outside_files import size_words

    shown = []  # a pass that ends before its first report says nothing

    def report(step) -> None:
        done = step.done_bytes >= step.total_bytes
        if done and not shown:
            return
        shown.append(step)
        share = step.done_bytes / step.total_bytes if step.total_bytes else 1.0
        end = "\n" if done else ""
        inflated = (
            f", {size_words(step.inflated_bytes)} inflated" if step.inflated_bytes > step.done_bytes else ""
        )
        print(
            f"\rkx: reading {path}: {share:.0%}, {step.kernels:,} kernel(s){inflated}",
            end=end,
            file=sys.stderr,
        )

    return report


def _beside(path: str, target: str, trusted: bool = False):
    """The build a profile is joined to: a record opened (its code run only if
    `trusted`), or a kernel file compiled (the user named it: kx compile's consent)."""
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.artifacts.derived import with_derived
    from kx_core.recorded.open_record import open_record, record_kind, with_record_stages

    if record_kind(path) is not None:
        opened = open_record(path, trusted=trusted)
        if opened.code_not_run:
            print(NOT_RUN_NOTE.format(path=path), file=sys.stderr)
        return with_derived(with_record_stages(opened).result)
    return with_derived(compile_file(CompileRequest(path, target=target)))


def _library_note(k, lib: dict[str, int]) -> str:
    """A note on a kernel's samples on lines of Triton's own library (its inlined tl.max,
    tl.sum: triton/language/standard.py), which the profile keeps without the kernel line
    that called them; '' if none."""
    if not lib:
        return ""
    on_lib, sampled = sum(lib.values()), sum(m.get("samples", 0) for m in k.by_line.values())
    hottest = max(k.by_line, key=lambda key: k.by_line[key].get("samples", 0))
    if on_lib == sampled:
        which = "all its sampled lines are there"
    else:
        which = "its hottest line is one of them" if hottest in lib else ""
    top = ", ".join(f"{os.path.basename(key)} {n}" for key, n in list(lib.items())[:3])
    return (
        f"  note: {on_lib} of {sampled} samples ({100 * on_lib / sampled:.1f}%) are on lines of Triton's own"
        f" library (inlined tl.* calls; Proton keeps no call site){'; ' + which if which else ''}: {top}"
    )


def profile_output(args: argparse.Namespace, opened) -> int:
    """A Proton profile: its kernels' launches, GPU time and samples, their hottest source
    lines; with --beside, the hot lines of the joined build's stages."""
    from dataclasses import replace

    from kx_core.base.textfile import text_or_empty
    from kx_core.ir.hot_lines import attribute, hottest
    from kx_core.recorded.open_record import NotARecord
    from kx_core.recorded.proton_profile import join_profile, library_lines

    profile = opened.profile
    if args.kernel:
        kernels = tuple(k for k in profile.kernels if k.kernel == args.kernel)
        if not kernels:
            print(f"kx: no kernel {args.kernel!r} in {args.path}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        profile = replace(profile, kernels=kernels)
    joined = {}
    if args.beside:
        try:
            build = _beside(args.beside, "cuda:90", args.trust)
        except NotARecord as e:
            print(f"kx: {e}", file=sys.stderr)
            return cli_args.EXIT_USAGE
        joined = join_profile(profile, build)
    hot = {k.kernel: attribute(k) for k in profile.kernels if k.by_pc or k.by_line}
    if args.json:
        doc = profile.to_json() | {"record": {"kind": opened.kind, "path": opened.path}}
        doc["diagnostics"] = [d.to_json() for d in opened.result.diagnostics]
        doc["hot_lines"] = {name: h.to_json() for name, h in hot.items()}
        doc["triton_library_lines"] = {k.kernel: lib for k in profile.kernels if (lib := library_lines(k))}
        if joined:
            doc["joined"] = {
                name: {
                    "kernel": j.kernel.display_name,
                    "by_stage": {
                        s: {str(n): h.to_json() for n, h in lines.items()} for s, lines in j.heat.items()
                    },
                }
                for name, j in joined.items()
            }
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return opened.result.exit_status
    from kx_core.recorded.open_record import RECORD_NAMES

    mode = "PC sampling" if profile.settings.get("mode") == "pcsampling" else "kernel times"
    print(f"{RECORD_NAMES[opened.kind]} ({mode}): {len(profile.kernels)} kernel(s) on {profile.device}")
    rows = [("kernel", "launches", "GPU us", "us/launch", "samples", "stalled", "top stall reasons")]
    for k in sorted(profile.kernels, key=lambda k: -k.window_ms):
        top = sorted(k.reasons.items(), key=lambda kv: -kv[1])[:3]
        rows.append(
            (
                k.kernel if len(k.kernel) <= 60 else k.kernel[:57] + "...",
                str(k.launches),
                f"{1000 * k.window_ms:.1f}",
                f"{1000 * k.window_ms / k.launches:.2f}" if k.launches else "-",
                str(k.samples) if k.samples else "-",
                str(k.stalled) if k.samples else "-",
                ", ".join(f"{r.removeprefix('stalled_')} {n}" for r, n in top) or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    for k in profile.kernels:
        if k.kernel not in hot:
            continue
        print(f"{k.kernel}: hottest lines of {k.source_file}")
        texts = {"source": text_or_empty(k.source_file)}
        j = joined.get(k.kernel)
        for row in hottest(hot[k.kernel], texts, stages=("source",), n=args.top):
            went = ""
            if j is not None:  # where the line went in the build's stages (its statement's lines)
                went = ", ".join(
                    f"{stage} {len(lines[row.line])}"
                    for stage, lines in j.links.items()
                    if lines.get(row.line)
                )
                went = f"  -> {went}" if went else "  -> no stage line"
            print(
                f"  {row.stage:>6}:{row.line:<5} {row.samples:>8} {100 * row.share:5.1f}%"
                f"  {row.top_reason.removeprefix('stalled_'):<18} {row.text[:60]}{went}"
            )
        if note := _library_note(k, library_lines(k)):
            print(note)
        if j is not None:
            print(
                f"  joined to {j.kernel.display_name} of {args.beside}: each stage line gets its statement's samples"
            )
    if args.beside and not joined:
        print(f"kx: no kernel of {args.beside} is a kernel of this profile (by name)", file=sys.stderr)
    for d in opened.result.diagnostics:
        print(f"kx: {d}", file=sys.stderr)
    return opened.result.exit_status
