"""The `kx` command line: every engine capability, plain text or --json. The verbs, by
the slice that serves them (`kx VERB --help` for each one's options):

    compile and read a file   kernels, compile, stages, summary, passes (this module)
    a kernel's reproducer     repro (cli.repro, kx_core.lab.repro)
    records of real runs      open; compile --export tritonparse (cli.records, kx_core.recorded)
    layouts                   layout, coalesce (this module, kx_core.layout)
    performance models        roofline, autotune, gpu (cli.model, kx_core.model)
    autotune at scale         sweep (cli.sweep, kx_core.sweep)
    the local GPU             bench, check, kernelbench (cli.bench, kx_core.bench)
    e-graphs and the MLIR lab egraph, lit, opt (cli.egraph_lit, kx_core.luminal, kx_core.lab)
    the app and the worker    gui, daemon (kx_gui.launcher, kx_core.compile.jobs.warm)

Exit statuses (every verb): see kx_core.cli.args.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from kx_core.base.triton_envs import VersionError
from kx_core.cli import args as cli_args
from kx_core.cli.compiling import compile_from_args as _compile
from kx_core.cli.cpp_filters import add_filter_option, filtered_result, hidden_note

# The result's JSON shape, its table and its stage files: kx_core.cli.result_output (shared
# with `kx open`), re-exported here where the verbs have always found them.
from kx_core.cli.result_output import (
    format_result,
    kernel_json,
    result_json,
    stage_file_names,
    write_stages,
)
from kx_core.compile.wire.source_file import KernelFileError
from kx_core.records.backends import backend_of, stage_names, stages_for
from kx_core.records.results import CompiledKernel, CompileRequest, CompileResult, RequestError
from kx_core.records.target import TargetError

# `layout --json` lists every element's owners: past this many elements the output would
# be hundreds of megabytes (4096x4096: 16M elements), so it is refused with a message.
MAX_JSON_ELEMENTS = 1 << 20

# A block holds at most 1024 threads: 32 warps of 32 lanes (16 of AMD's 64, below this).
MAX_WARPS = 32


def _constexpr_pair(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected K=V, got {text!r}")
    key, value = text.split("=", 1)
    return key.strip(), value.strip()


def _arg_pair(text: str) -> tuple[str, str]:
    """--arg NAME=VALUE, its value's spelling checked here (a tensor that does not parse
    is said naming it, exit 2, before a worker starts)."""
    key, value = _constexpr_pair(text)
    from kx_core.compile.capturing.library import arg_value_problem

    if problem := arg_value_problem(value):
        raise argparse.ArgumentTypeError(f"{key}={value}: {problem}")
    return key, value


def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a Python file with Triton kernels")
    p.add_argument(
        "--target",
        default="default",
        help="cuda:90, sm_80, hip:gfx942, local (default: local GPU, else cuda:90)",
    )
    p.add_argument("--kernel", help="only this kernel (with --signature: compile it directly)")
    p.add_argument("--signature", help="non-constexpr parameter types in order, e.g. '*fp32,*fp32,i32'")
    p.add_argument("--constexpr", action="append", type=_constexpr_pair, default=[], metavar="K=V")
    p.add_argument(
        "--num-warps",
        type=cli_args.power_of_two_upto(MAX_WARPS),
        help="with --signature or --arg: the launch's num_warps (a kernel that is not autotuned)",
    )
    p.add_argument("--num-stages", type=cli_args.positive_int, help="likewise num_stages")
    p.add_argument("--maxnreg", type=cli_args.positive_int, help="likewise maxnreg (registers per thread)")
    p.add_argument("--passes", action="store_true", help="also capture the IR before every pass")
    p.add_argument(
        "--timeout", type=cli_args.seconds, default=180.0, help="seconds before the worker is killed (180)"
    )
    p.add_argument(
        "--jobs", type=cli_args.positive_int, help="autotune configs compiled at once (default: CPU count)"
    )
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the result cache")
    p.add_argument(
        "--gpu",
        help="the GPU the capture stands for (h100, h200, a100, rtx4090, rtx3070, mi300x; default: the target's)",
    )
    p.add_argument(
        "--stop-at-data",
        action="store_true",
        help="stop the file at its first read of tensor data (default: a placeholder, and go on)",
    )
    p.add_argument("--python", metavar="PATH", help="run the file with this interpreter (your environment)")
    p.add_argument(
        "--triton",
        metavar="VERSION",
        help="compile with a Triton version kx manages (kx versions add VERSION): its own environment",
    )
    p.add_argument(
        "--arg",
        action="append",
        type=_arg_pair,
        default=[],
        metavar="NAME=VALUE",
        help="with --kernel: compile the kernel as a call with these arguments would "
        "(fp16[256,512], fp32[64,64]:1,64, 4096, 1e-6, True, None); the module is imported, not run",
    )
    p.add_argument("--grid", help="with --arg: the grid of that call (128, 64x8); default 1")
    p.add_argument(
        "--memory-limit",
        type=cli_args.memory_limit,
        metavar="MIB",
        help="the worker's memory limit in MiB (default: 3/4 of this machine's; 0: none)",
    )


def build_parser() -> argparse.ArgumentParser:
    """Every verb: this module's (the app and the worker, compiling and reading a file,
    layouts), then each slice's own (cli.model, cli.bench, cli.egraph_lit)."""
    parser = argparse.ArgumentParser(
        prog="kx", description="kx (Kernel eXplorer): Triton kernels, stage by stage"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_app_verbs(sub)
    _add_compile_verbs(sub)
    _add_layout_verbs(sub)
    from kx_core.cli.bench import add_bench_command
    from kx_core.cli.compare import add_compare_verb
    from kx_core.cli.egraph_lit import add_lit_commands, add_luminal_commands
    from kx_core.cli.links import add_links_verb
    from kx_core.cli.model import add_gpu_command, add_model_commands
    from kx_core.cli.profile import add_profile_command
    from kx_core.cli.records import add_open_verb
    from kx_core.cli.repro import add_repro_verb
    from kx_core.cli.sweep import add_sweep_verb
    from kx_core.cli.versions import add_versions_verb

    add_links_verb(sub, _add_compile_options)
    add_compare_verb(sub, _add_compile_options)
    add_repro_verb(sub, _add_compile_options)
    add_model_commands(sub, _add_compile_options)
    add_gpu_command(sub)
    add_bench_command(sub)
    add_profile_command(sub)
    add_luminal_commands(sub)
    add_lit_commands(sub)
    add_versions_verb(sub)
    add_sweep_verb(sub)
    add_open_verb(sub)
    return parser


def _add_app_verbs(sub) -> None:
    # `kx gui` is answered by the console script (kx_gui.launcher) before this parser: the
    # engine never imports Qt. Listed here so that `kx --help` shows it.
    gui = sub.add_parser("gui", help="the desktop app: kx gui [FILE] [--target T] [--screenshot OUT.png] ...")
    gui.add_argument("rest", nargs=argparse.REMAINDER)
    dm = sub.add_parser("daemon", help="a warm worker for the command line: start, stop, status")
    dm.add_argument("action", choices=("start", "stop", "status"))
    dm.add_argument("--python", metavar="PATH", help="the interpreter it serves (default: kx's own)")
    kl = sub.add_parser("kernels", help="list a file's kernels and their parameters without running it")
    kl.add_argument("file", help="a Python file (a script or a library module) with Triton kernels")
    kl.add_argument("--python", metavar="PATH", help="import the file with this interpreter")
    kl.add_argument("--timeout", type=cli_args.seconds, default=60.0)
    kl.add_argument("--json", action="store_true")


def _add_compile_verbs(sub) -> None:
    c = sub.add_parser("compile", help="compile every kernel a file launches")
    _add_compile_options(c)
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    c.add_argument("--out", metavar="DIR", help="write each stage as <kernel>[<config>].<ext>")
    from kx_core.cli.records import add_export_option

    add_export_option(c)
    add_filter_option(c)
    s = sub.add_parser("stages", help="print one stage of every kernel as text")
    _add_compile_options(s)
    s.add_argument("--stage", required=True, choices=stage_names())
    add_filter_option(s)
    m = sub.add_parser("summary", help="instruction summary of every kernel/config, side by side")
    _add_compile_options(m)
    m.add_argument("--json", action="store_true")
    p = sub.add_parser("passes", help="the pass pipeline: every MLIR/LLVM pass, changed or not, timed")
    _add_compile_options(p)
    p.add_argument("--changed-only", action="store_true", help="list only passes that changed the IR")
    p.add_argument("--show", type=cli_args.int_in(0), metavar="N", help="print the IR before pass number N")
    p.add_argument("--json", action="store_true")


def _add_layout_verbs(sub) -> None:
    lay = sub.add_parser(
        "layout", help="who owns which element of a layout (any kind, via Triton's linear layouts)"
    )
    lay.add_argument(
        "layout", nargs="?", help="attribute text, e.g. '#ttg.blocked<{...}>', or an alias with --from"
    )
    lay.add_argument("--shape", required=True, type=cli_args.shape, help="tensor shape, e.g. 64x64")
    lay.add_argument("--alias", help="a layout alias of the TTGIR given with --from, e.g. '#blocked1'")
    lay.add_argument("--from", dest="from_file", metavar="FILE.ttgir", help="TTGIR text to read aliases from")
    lay.add_argument(
        "--warp", type=cli_args.int_in(0), default=0, help="the warp whose lane table is printed (0)"
    )
    lay.add_argument(
        "--elem-bytes",
        type=cli_args.int_in(1, 16),
        metavar="B",
        help="also simulate warp 0's first access to a row-major tensor of B-byte elements",
    )
    lay.add_argument(
        "--to",
        metavar="LAYOUT",
        help="a convert_layout to this layout: its cost, and Triton's trivial verdict",
    )
    lay.add_argument(
        "--reg",
        metavar="LAYOUT",
        help="for a shared layout: the register layout of the tensor a warp reads/writes there (bank conflicts)",
    )
    lay.add_argument(
        "--bits", type=cli_args.element_bits, default=16, help="element size in bits for a shared layout (16)"
    )
    lay.add_argument("--json", action="store_true")
    co = sub.add_parser("coalesce", help="the layout Triton's coalesce pass gives a load, term by term")
    co.add_argument("--shape", required=True, type=cli_args.shape, help="tensor shape, e.g. 64x64")
    co.add_argument("--order", default=None, help="dims fastest first, e.g. 1,0 (default: row-major)")
    co.add_argument("--elem-bits", type=cli_args.element_bits, default=32, help="element size in bits (32)")
    co.add_argument(
        "--contiguity",
        type=cli_args.positive_int,
        help="contiguous elements along order[0] (default: the whole dim)",
    )
    co.add_argument(
        "--divisibility", type=cli_args.power_of_two, default=16, help="pointer alignment in bytes (16)"
    )
    co.add_argument("--num-warps", type=cli_args.power_of_two_upto(MAX_WARPS), default=4)
    co.add_argument("--json", action="store_true")


__all__ = ["format_result", "kernel_json", "main", "result_json", "stage_file_names", "write_stages"]


def main(argv: list[str] | None = None) -> int:
    """The command line; the exit statuses are cli.args' (one table for every verb). With
    --json, a failure that printed nothing on stdout prints the error envelope there
    (cli.json_answer)."""
    from kx_core.cli.json_answer import answering_in_json, wants_json

    if wants_json(sys.argv[1:] if argv is None else argv):
        return answering_in_json(lambda: _guarded(argv))
    return _guarded(argv)


def _guarded(argv: list[str] | None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `kx ... | head`: the reader left; say nothing more.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps interpreter exit quiet
        return cli_args.EXIT_OK
    except KeyboardInterrupt:
        print("kx: interrupted", file=sys.stderr)
        return cli_args.EXIT_INTERRUPTED
    except (OSError, UnicodeDecodeError) as e:  # a file kx was given cannot be read or written
        name = getattr(e, "filename", None)
        print(f"kx: {name + ': ' if name else ''}{getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - a fault of kx's own: one line, not a traceback
        where = e.__traceback__
        while where is not None and where.tb_next is not None:
            where = where.tb_next
        at = f" ({os.path.basename(where.tb_frame.f_code.co_filename)}:{where.tb_lineno})" if where else ""
        print(f"kx: internal error{at}: {type(e).__name__}: {e} (please report it)", file=sys.stderr)
        return cli_args.EXIT_INTERNAL


def _daemon_command(args: argparse.Namespace) -> int:
    """`kx daemon start|stop|status`: the warm worker (kx_core.compile.jobs.warm) that every
    verb uses while it runs, for one interpreter."""
    from kx_core.compile.jobs import warm

    if args.action == "start":
        proc = warm.launch(args.python, detach=True)
        info = warm.status(args.python)
        if info is None:
            why = warm.last_refusal or f"see its log in {warm.runtime_dir()}"
            print(f"kx: the daemon did not start ({why})", file=sys.stderr)
            return 1
        print(
            ("started" if proc is not None else "already running")
            + f": pid {info['pid']}, {info['python']}, triton {info['triton']}"
        )
        return 0
    if args.action == "stop":
        print("stopped" if warm.stop(args.python) else "not running")
        return 0
    info = warm.status(args.python)
    if info is None:
        print("not running" + (f" ({warm.last_refusal})" if warm.last_refusal else ""))
        return 1
    print(
        f"running: pid {info['pid']}, {info['python']}, triton {info['triton']}, "
        f"{info['jobs']} jobs in {info['uptime_s']} s, {info['running']} running"
    )
    return 0


def _kernels_command(args: argparse.Namespace) -> int:
    from kx_core.compile.jobs.runner import compile_file

    request = CompileRequest(
        file=args.file, target="cuda:90", import_only=True, python=args.python, timeout_s=args.timeout
    )
    try:
        result = compile_file(request, use_cache=False)
    except FileNotFoundError as e:
        print(f"kx: no such file: {e.filename}", file=sys.stderr)
        return 2
    except KernelFileError as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    if args.json:
        out = {
            "file": result.file,
            "kernels": [d.to_json() | {"command": d.command(args.file)} for d in result.definitions],
            "diagnostics": [d.to_json() for d in result.diagnostics],
        }
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_definitions(result, args.file))
    return 1 if any(d.fatal or d.kind == "runtime" for d in result.diagnostics) else 0


def format_definitions(result: CompileResult, shown_file: str) -> str:
    """Each kernel: its decorators, parameters (suggested --arg values) and a command."""
    lines = [f"{result.file}: {len(result.definitions)} kernel(s)"]
    for d in result.definitions:
        decos = []
        for name in d.decorators:
            if name == "autotune":
                decos.append(f"@autotune({len(d.configs)} configs, key {', '.join(d.autotune_key) or '-'})")
            elif name == "heuristics":
                decos.append(f"@heuristics({', '.join(d.heuristics)})")
            else:
                decos.append("@jit")
        lines.append(f"\n{d.name}  line {d.line}  {' '.join(decos)}")
        for p in d.params:
            kind = "constexpr" if p.constexpr else (p.annotation or "")
            if p.provided_by:
                value = f"(set by {p.provided_by})"
            elif p.has_default:
                value = f"= {p.default!r}"
            else:
                value = f"--arg {p.name}={p.suggested}"
            extra = "  do_not_specialize" if p.do_not_specialize else ""
            lines.append(f"  {p.name:24} {kind:10} {value}{extra}")
        lines.append("  " + d.command(shown_file))
    for diag in result.diagnostics:
        lines.append(str(diag))
    return "\n".join(lines)


def format_passes(k: CompiledKernel, changed_only: bool) -> str:
    """One line per pass: number, pipeline, kind, name, flag, function, changed, time."""
    lines = [f"{k.display_name}: {len(k.passes)} passes, {sum(p.changed for p in k.passes)} changed"]
    lines.append(
        f"{'#':>4} {'pm':>2} {'kind':4} {'pass':44} {'argument':40} {'function':14} {'chg':3} {'ms':>7}"
    )
    for i, p in enumerate(k.passes):
        if changed_only and not p.changed:
            continue
        ms = f"{p.time_s * 1000:.2f}" if p.time_s is not None else "-"
        lines.append(
            f"{i:>4} {p.pipeline:>2} {p.kind:4} {p.name[:44]:44} {p.argument[:40]:40} "
            f"{(p.function or '')[:14]:14} {'yes' if p.changed else '':3} {ms:>7}"
        )
    return "\n".join(lines)


def _passes_command(args: argparse.Namespace, result: CompileResult) -> int | None:
    with_passes = [k for k in result.kernels if k.passes]
    if args.show is not None and with_passes and args.show >= max(len(k.passes) for k in with_passes):
        counts = ", ".join(f"{k.display_name}: 0 to {len(k.passes) - 1}" for k in with_passes)
        print(f"kx: --show {args.show} is out of range (passes {counts})", file=sys.stderr)
        return cli_args.EXIT_USAGE
    for k in with_passes:
        if args.show is not None:
            if args.show < len(k.passes):
                p = k.passes[args.show]
                print(f"// ===== {k.display_name}: IR before pass {args.show} {p.name} ({p.argument}) =====")
                print(p.ir)
        elif args.json:
            json.dump({"kernel": k.display_name, "passes": [p.to_json() for p in k.passes]}, sys.stdout)
            sys.stdout.write("\n")
        else:
            print(format_passes(k, args.changed_only))


def _layout_command(args: argparse.Namespace) -> int:
    from kx_core.ir.anatomy import layout_alias_texts
    from kx_core.layout.linear import LayoutError, linear_bases, ownership

    shape = args.shape
    aliases: dict[str, str] = {}
    if args.from_file:
        from kx_core.base.textfile import InputFileError, read_text

        try:
            text = read_text(args.from_file)
        except InputFileError as e:
            print(f"kx: {e}", file=sys.stderr)
            return 2
        aliases = layout_alias_texts(text)
    attr = args.alias or args.layout
    if not attr:
        print("kx: give a layout, or --alias NAME --from FILE.ttgir", file=sys.stderr)
        return 2
    if args.alias and not args.from_file:
        print(
            f"kx: --alias {args.alias} needs --from FILE.ttgir (the TTGIR that defines it)", file=sys.stderr
        )
        return 2
    if args.alias and args.alias not in aliases:
        known = ", ".join(sorted(aliases)) or "none"
        print(
            f"kx: --alias {args.alias} is not defined in {args.from_file} (its aliases: {known})",
            file=sys.stderr,
        )
        return 2
    elements = math.prod(shape)
    if args.json and elements > MAX_JSON_ELEMENTS:
        print(
            f"kx: --shape {'x'.join(map(str, shape))} is {elements:,} elements; --json lists every element's "
            f"owners and takes at most {MAX_JSON_ELEMENTS:,} (a smaller shape shows the same pattern)",
            file=sys.stderr,
        )
        return 2
    from kx_core.layout.shared import is_shared

    try:
        if is_shared(attr, aliases):
            return _shared_layout_command(args, attr, shape, aliases)
        own = ownership(linear_bases(attr, shape, aliases))
        if args.to:
            return _conversion_command(args, attr, own, shape, aliases)
    except LayoutError as e:
        print(f"kx: {e}", file=sys.stderr)
        return 1
    layout_text = aliases.get(attr, attr)
    if args.json:
        json.dump({"layout": layout_text, "shape": shape, "owners": own.owners_row_major()}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    nw, nl, nr = own.coords.shape[:3]
    if args.warp >= nw:
        print(
            f"kx: --warp {args.warp} is out of range: the layout has {nw} warps (0 to {nw - 1})",
            file=sys.stderr,
        )
        return 2
    print(
        f"{layout_text}  shape {'x'.join(map(str, shape))}: {nw} warps x {nl} lanes x {nr} registers"
        + (f", up to {int(own.count.max())} owners per element (broadcast)" if own.count.max() > 1 else "")
    )
    if args.elem_bytes:
        from kx_core.layout.linear import first_access

        acc = first_access(own, args.elem_bytes)
        print(
            f"first access of warp 0 ({args.elem_bytes}-byte elements, row-major): {acc.vector} per lane, "
            f"{acc.bytes_requested} bytes in {acc.sectors} sectors of 32 B: {acc.efficiency:.0%} efficient"
        )
    warp = args.warp
    for lane in range(nl):
        coords = [tuple(int(x) for x in own.coords[warp, lane, r]) for r in range(nr)]
        print(f"warp {warp} lane {lane:2d}: " + " ".join("(" + ",".join(map(str, c)) + ")" for c in coords))
    return 0


def _shared_layout_command(args: argparse.Namespace, attr: str, shape: list[int], aliases) -> int:
    """A shared layout: the offset of every element; with --reg, warp 0's bank access."""
    from kx_core.layout.linear import linear_bases, ownership
    from kx_core.layout.shared import bank_access, placement

    off = placement(attr, shape, aliases)
    access = (
        bank_access(ownership(linear_bases(args.reg, shape, aliases)), off, args.bits) if args.reg else None
    )
    if args.json:
        out = {"layout": aliases.get(attr, attr), "shape": shape, "offsets": off.ravel().tolist()}
        if access is not None:
            out["access"] = access.to_json()
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{aliases.get(attr, attr)}  shape {'x'.join(map(str, shape))}: shared offset of every element")
    grid = off if off.ndim == 2 else off.reshape(1, -1)
    width = len(str(int(off.max())))
    for r, row in enumerate(grid[:64]):
        print(f"row {r:3d}: " + " ".join(f"{int(x):{width}d}" for x in row[:64]))
    if access is not None:
        print(
            f"warp 0 through {args.reg} ({args.bits}-bit elements): {access.vector} per lane per access, "
            f"{access.lanes_per_wavefront} lanes per 128-byte wavefront, "
            f"{access.conflicts} bank conflict{'s' if access.conflicts != 1 else ''} per wavefront"
        )
        for lane, (o, bank) in enumerate(zip(access.offsets, access.banks)):
            print(f"  lane {lane:2d}: offset {o:6d}  bank {bank:2d}")
    return 0


def _conversion_command(args: argparse.Namespace, attr: str, own, shape: list[int], aliases) -> int:
    """convert_layout attr -> args.to: kx's cost class and, for 2-D, Triton's verdict."""
    from kx_core.layout.linear import conversion_class, linear_bases, ownership

    cost = conversion_class(own, ownership(linear_bases(args.to, shape, aliases)))
    trivial = None
    if len(shape) == 2:
        from kx_core.layout.gluon_oracle import triton_says_trivial

        trivial = triton_says_trivial(attr, args.to, shape, aliases)
    if args.json:
        json.dump(
            {"from": attr, "to": args.to, "shape": shape, "cost": cost, "triton_trivial": trivial}, sys.stdout
        )
        sys.stdout.write("\n")
        return 0
    print(f"convert_layout at {'x'.join(map(str, shape))}: {cost.replace('_', ' ')}")
    if trivial is not None:
        print(f"Triton (Gluon assert_trivial): {'trivial' if trivial else 'not trivial'}")
    return 0


def _coalesce_command(args: argparse.Namespace) -> int:
    from kx_core.layout.blocked import coalesced_layout, explain_elements_per_thread

    shape = args.shape
    try:
        order = [int(x) for x in args.order.split(",")] if args.order else list(range(len(shape)))[::-1]
    except ValueError:
        print("kx: --order like 1,0", file=sys.stderr)
        return 2
    if sorted(order) != list(range(len(shape))):
        print(f"kx: --order {order} is not a permutation of the {len(shape)} dims", file=sys.stderr)
        return 2
    contiguity = args.contiguity or shape[order[0]]
    terms = explain_elements_per_thread(
        shape, order, args.elem_bits, contiguity, args.divisibility, args.num_warps
    )
    layout = coalesced_layout(shape, order, args.elem_bits, contiguity, args.divisibility, args.num_warps)
    if args.json:
        json.dump({"layout": str(layout), "terms": terms}, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"sizePerThread[{order[0]}] = min of:")
    for name in ("alignment", "contiguity", "shape", "128-bit limit", "elements/threads cap"):
        mark = "  <- limits it" if name in terms["limited by"] else ""
        print(f"  {name:22} {terms[name]}{mark}")
    print(f"= {terms['chosen']}\n{layout}")
    return 0


# Verbs that do not compile the file first: verb -> "module:function(args)". Each slice
# registers its own here; the compile verbs below share one compile.
STANDALONE_VERBS = {
    "kernels": "kx_core.cli.commands:_kernels_command",
    "daemon": "kx_core.cli.commands:_daemon_command",
    "layout": "kx_core.cli.commands:_layout_command",
    "coalesce": "kx_core.cli.commands:_coalesce_command",
    "gpu": "kx_core.cli.model:gpu_command",
    "bench": "kx_core.cli.bench:bench_command",
    "check": "kx_core.cli.bench:check_command",
    "profile": "kx_core.cli.profile:profile_command",
    "kernelbench": "kx_core.cli.bench:kernelbench_command",
    "lit": "kx_core.cli.egraph_lit:lit_command",
    "opt": "kx_core.cli.egraph_lit:opt_command",
    "egraph": "kx_core.cli.egraph_lit:egraph_command",
    "compare": "kx_core.cli.compare:compare_command",
    "versions": "kx_core.cli.versions:versions_command",
    "sweep": "kx_core.cli.sweep:sweep_command",
    "open": "kx_core.cli.records:open_command",
    "repro": "kx_core.cli.repro:repro_command",
}
# Verbs that show a compile's result: verb -> "module:function(args, result) -> code".
RESULT_VERBS = {
    "compile": "kx_core.cli.commands:_compile_output",
    "stages": "kx_core.cli.commands:_stages_output",
    "links": "kx_core.cli.links:links_output",
    "summary": "kx_core.cli.commands:_summary_output",
    "passes": "kx_core.cli.commands:_passes_output",
    "roofline": "kx_core.cli.model:roofline_command",
    "autotune": "kx_core.cli.model:autotune_command",
}


def _verb(path: str):
    import importlib

    module, _, function = path.partition(":")
    return getattr(importlib.import_module(module), function)


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "gui":
        print("kx gui: start the app with the `kx` command, `python -m kx_gui` or main.py", file=sys.stderr)
        return 2
    if args.command in STANDALONE_VERBS:
        return _verb(STANDALONE_VERBS[args.command])(args)
    if args.command == "autotune" and args.t3:
        return _verb(RESULT_VERBS["autotune"])(args, None)
    args.passes = getattr(args, "passes", False) or args.command == "passes"
    from kx_core.cli.records import check_export

    if (bad := check_export(args)) is not None:
        print(f"kx: {bad}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    try:
        result = _compile(args)
    except (TargetError, KernelFileError, RequestError, VersionError) as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"kx: no such file: {e.filename}", file=sys.stderr)
        return 2
    if args.command != "compile" and not any(k.status == "compiled" for k in result.kernels):
        # nothing for the verb to show: what stopped the compile, located, is the answer
        for d in result.diagnostics:
            print(f"kx: {d}", file=sys.stderr)
        if not result.diagnostics:
            print(f"kx: {args.file}: no compiled kernel", file=sys.stderr)
        return result.exit_status or cli_args.EXIT_FAILED
    derived = {s.name for s in stages_for(result.target) if s.derived_from}
    if derived and (
        args.command in ("summary", "links")
        or getattr(args, "stage", None) in derived
        or (args.command == "compile" and (args.json or args.out or args.export))
    ):
        from kx_core.compile.artifacts.derived import with_derived

        result = with_derived(result, args.jobs)
    return _verb(RESULT_VERBS[args.command])(args, result) or result.exit_status


def _cpp_filtered(args: argparse.Namespace, result: CompileResult) -> tuple[CompileResult, int]:
    """A C++ kernel's result as `--filter` shows it (Compiler Explorer's filters, on by
    default), and how many library functions it hid; any other result as it is."""
    from kx_core.cpu.targets import is_cpu_spec

    if not is_cpu_spec(result.target.spec):
        return result, 0
    return filtered_result(result, args.filter)


def _compile_output(args: argparse.Namespace, result: CompileResult) -> int:
    result, hidden = _cpp_filtered(args, result)
    if args.out:
        write_stages(result, args.out)
    if args.export:
        from kx_core.cli.records import export_result

        if (bad := export_result(args, result)) is not None:
            return bad
    if args.json:
        doc = result_json(result)
        if hidden:
            doc["hidden_library_functions"] = hidden
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_result(result))
        if hidden:
            print(hidden_note(hidden))
    return result.exit_status


def _summary_output(args: argparse.Namespace, result: CompileResult) -> int:
    from kx_core.ir.summary import format_rows, format_summaries, summarize

    compiled = [k for k in result.kernels if k.status == "compiled"]
    if backend_of(result.target).instruction_mix == "x86":  # a C++ build: each function's x86 mix
        from kx_core.cpu.asm_mix import asm_mix, mix_rows, short_function_name

        mixes = [asm_mix(k.name, k.stages.get("asm", "")) for k in compiled]
        if args.json:
            json.dump([m.to_json() for m in mixes], sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            print(format_rows([short_function_name(m.function) for m in mixes], mix_rows(mixes)))
        return result.exit_status
    summaries = [summarize(k) for k in compiled]
    if args.json:
        json.dump([x.to_json() for x in summaries], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_summaries(summaries))
    return result.exit_status


def _passes_output(args: argparse.Namespace, result: CompileResult) -> int:
    if (bad := _passes_command(args, result)) is not None:
        return bad
    for d in result.diagnostics:
        if d.fatal:
            print(d, file=sys.stderr)
    return result.exit_status


def _stages_output(args: argparse.Namespace, result: CompileResult) -> int:
    result, hidden = _cpp_filtered(args, result)
    if hidden:
        print(hidden_note(hidden), file=sys.stderr)
    shown = [k for k in result.kernels if args.stage in k.stages]
    for k, base in zip(shown, stage_file_names(shown)):
        if len(shown) > 1:
            print(f"// ===== {base} =====")
        print(k.stages[args.stage])
    for d in result.diagnostics:
        if d.fatal or not shown:
            print(d, file=sys.stderr)
    return result.exit_status
