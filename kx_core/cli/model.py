"""`kx roofline` and `kx autotune`: the model commands (kx_core.model) of the CLI."""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.cli.args import gemm_shape, int_in, positive_number
from kx_core.records.results import CompileResult, short_label, short_name


def add_model_commands(sub, add_compile_options) -> None:
    r = sub.add_parser("roofline", help="every kernel/config of a file against the GPU's roofs")
    add_compile_options(r)
    _add_gpu_options(r)
    r.add_argument("--flops", type=positive_number, help="override the FLOP estimate (every kernel)")
    r.add_argument("--bytes", type=positive_number, help="override the DRAM byte estimate (every kernel)")
    r.add_argument(
        "--timed",
        action="store_true",
        help="also time every config on the local GPU (kx bench) and place each achieved point",
    )
    r.add_argument("--json", action="store_true")
    a = sub.add_parser("autotune", help="the config matrix of a kernel; --t3 runs drill T3's pipeline")
    add_compile_options(a)
    _add_gpu_options(a)
    a.add_argument("--csv", metavar="PATH", help="also write the matrix as CSV")
    a.add_argument(
        "--t3",
        type=gemm_shape,
        metavar="MxNxK",
        help="run T3's prune -> model top-k -> measure -> pick for this GEMM (model-only)",
    )
    a.add_argument(
        "--top-k", type=int_in(1), default=8, help="configs measured after the model's ranking (8)"
    )
    a.add_argument("--json", action="store_true")


def add_gpu_command(sub) -> None:
    g = sub.add_parser("gpu", help="the spec table, the local GPU, and its measured ceilings")
    g.add_argument(
        "--measure", action="store_true", help="measure this GPU's copy bandwidth and matmul throughput"
    )
    g.add_argument("--json", action="store_true")


def gpu_command(args: argparse.Namespace) -> int:
    from kx_core.model.gpu import SPECS, local_gpu, measure_ceilings

    local = local_gpu(exact=True)
    if args.measure:
        if local is None:
            print("kx: no CUDA GPU on this machine: nothing to measure", file=sys.stderr)
            return 2
        measure_ceilings(force=True)
        local = local_gpu(exact=True)
    gpus = ([local] if local else []) + list(SPECS.values())
    if args.json:
        json.dump(
            {"local": local.to_json() if local else None, "table": [g.to_json() for g in SPECS.values()]},
            sys.stdout,
        )
        sys.stdout.write("\n")
        return 0
    for g in gpus:
        peaks = ", ".join(f"{p} {f / 1e12:.1f}" for p, f in g.peaks)
        print(f"{g.name:24} {g.arch:7} {g.sm_count:4} SMs  {g.peak_bw / 1e12:.2f} TB/s  TFLOP/s: {peaks}")
        if g.measured:
            m = dict(g.measured)
            print(
                f"{'':24} measured: copy {m.get('bw', 0) / 1e12:.2f} TB/s, bf16 {m.get('bf16', 0) / 1e12:.0f} TFLOP/s, "
                f"fp32 {m.get('fp32', 0) / 1e12:.1f} TFLOP/s"
            )
        print(f"{'':24} source: {g.source}")
    if local is None:
        print("(no local GPU: the table only)")
    return 0


def _add_gpu_options(p: argparse.ArgumentParser) -> None:
    # --gpu (a compile option) names the GPU both the capture stands for and the model uses
    p.add_argument("--measured", action="store_true", help="use the GPU's measured ceilings where cached")


def _gpu(args: argparse.Namespace):
    from kx_core.model.gpu import spec

    return spec(args.gpu) if args.gpu else None


def rows_gpu(args: argparse.Namespace, result: CompileResult) -> str:
    """The GPU the model used, as a header line says it."""
    from kx_core.model.kernel import gpu_for

    compiled = [k for k in result.kernels if k.status == "compiled"]
    gpu = _gpu(args) or (gpu_for(compiled[0]) if compiled else None)
    return gpu.name if gpu else "-"


def measured_note(gpu, wanted: bool) -> str | None:
    """What --measured could not do: the GPU has no measured ceilings cached."""
    if not wanted or gpu.measured:
        return None
    return (
        f"no measured ceilings for {gpu.name}: the datasheet roofs are used. "
        "`kx gpu --measure` on a machine with that GPU measures them (copy bandwidth, "
        "matmul throughput) and caches them for every later run"
    )


def roofline_command(args: argparse.Namespace, result: CompileResult) -> int:
    from kx_core.model.kernel import gpu_for, model_kernel
    from kx_core.model.matrix import modelled
    from kx_core.model.roofline import roofs_text

    compiled = [k for k in result.kernels if modelled(k)]
    if not compiled:
        print(
            "kx: no compiled, launched kernel with Triton's TTIR (what the work model reads) to place "
            "on the roofline",
            file=sys.stderr,
        )
        return 1
    gpu = _gpu(args) or gpu_for(compiled[0])
    timed = _timed(args, result) if getattr(args, "timed", False) else {}
    if timed is None:
        return 2
    ms = [
        model_kernel(
            k,
            gpu,
            flops=args.flops,
            nbytes=args.bytes,
            measured_roofs=args.measured,
            measured_s=timed.get(k.display_name),
        )
        for k in compiled
    ]
    note = measured_note(gpu, args.measured)
    if args.json:
        json.dump(
            {"gpu": gpu.to_json(), "kernels": [m.to_json() for m in ms], "notes": [note] if note else []},
            sys.stdout,
        )
        sys.stdout.write("\n")
        return 0
    if note:
        print(f"kx: {note}", file=sys.stderr)
    print(f"{gpu.name}: {roofs_text(gpu, args.measured)}")
    names = [short_name(m.kernel.split("[")[0], m.config) for m in ms]
    width = max(len("kernel"), *map(len, names))
    print(
        f"{'kernel':{width}} {'prec':5} {'GFLOP':>9} {'MB requested':>12} {'MB DRAM':>9} {'FLOP/B':>8} "
        f"{'bound':>8} {'modeled us':>11} {'floor us':>9}"
    )
    for name, m in zip(names, ms):
        dram = f"{m.work.dram_bytes / 1e6:9.3f}" if m.work.dram_bytes else f"{'-':>9}"
        print(
            f"{name:{width}} {m.work.precision:5} {m.work.flops / 1e9:9.3f} {m.work.bytes / 1e6:12.3f} {dram} "
            f"{m.roofline.intensity:8.1f} {m.roofline.bound:>8} {m.modeled_s * 1e6:11.2f} {m.launch_floor_s * 1e6:9.2f}"
        )
        if m.measured_s:  # the achieved point: kx's own timing of this config (--timed)
            s = m.measured_s
            print(
                f"    measured {s * 1e6:.2f} us: achieved {m.work.flops / s / 1e12:.2f} TFLOP/s, "
                f"{m.work.bytes / s / 1e9:.1f} GB/s of requested bytes, "
                f"{m.roofline.percent_of_roof:.1f}% of the attainable at its intensity"
            )
        elif timed:
            print("    measured: not timed (the bench run did not launch this config)")
        for note in m.work.notes:
            print(f"    note: {note}")
    return 0


def _timed(args: argparse.Namespace, result: CompileResult) -> dict[str, float] | None:
    """Median seconds per kernel display name, every config timed on the local GPU;
    None (with the reason said) when they cannot be: no GPU, or a roofline of another
    target than the one the GPU runs (its configs would be other kernels)."""
    from kx_core.bench.bench import NoGPU, bench_file, has_gpu
    from kx_core.records.target import local_target

    local = local_target()
    if not has_gpu() or local is None:
        print("kx: --timed times the file on the local GPU, and there is none here", file=sys.stderr)
        return None
    if result.target.spec != local.spec:
        print(
            f"kx: --timed times the kernels the local GPU ({local.spec}) runs; this roofline is of "
            f"{result.target.spec}: add --target local",
            file=sys.stderr,
        )
        return None
    try:
        return bench_file(args.file, args.kernel, all_configs=True).seconds_by_name()
    except NoGPU as e:
        print(f"kx: {e}", file=sys.stderr)
        return None


def autotune_command(args: argparse.Namespace, result: CompileResult | None) -> int:
    if args.t3:
        return _t3_command(args)
    from kx_core.model.matrix import COLUMNS, HEADERS, config_matrix, to_csv

    names = sorted({k.name for k in result.kernels if k.status == "compiled"})
    name = args.kernel or (names[0] if len(names) == 1 else None)
    if name is None:
        print(f"kx: several kernels ({', '.join(names)}): choose one with --kernel", file=sys.stderr)
        return 2
    rows = config_matrix(result.kernels, name, _gpu(args))
    if not rows:
        print(f"kx: no compiled, launched kernel named {name}", file=sys.stderr)
        return 1
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as f:
            f.write(to_csv(rows))
    if args.json:
        json.dump([r.to_json() for r in rows], sys.stdout)
        sys.stdout.write("\n")
        return 0
    headers = [HEADERS[c] for c in COLUMNS]
    table = [[short_label(r.config) if r.config != "(no config)" else r.config] + [_fmt(v) for v in r.cells()[1:]]
             for r in rows]  # fmt: skip
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(headers)]
    print(f"{name} on {rows_gpu(args, result)}")
    print("  ".join(c.rjust(w) for c, w in zip(headers, widths)))
    for cells in table:
        print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    return 0


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def _t3_command(args: argparse.Namespace) -> int:
    from kx_core.model import autotune as t3
    from kx_core.model.gpu import H100_SXM

    M, N, K = args.t3  # the parser's gemm_shape: three positive sizes
    gpu = _gpu(args) or H100_SXM

    def model_only(c):  # no GPU timing: the perf model is the measurement
        return t3.perf_model(gpu, M, N, K, c)

    best, rows, pruned = t3.autotune(gpu, M, N, K, model_only, k=args.top_k, repeats=1)
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as f:
            f.write(t3.to_csv(rows))
    if args.json:
        json.dump(
            {"gpu": gpu.name, "pruned": pruned, "rows": rows, "best": best, "measure": "model-only"},
            sys.stdout,
        )
        sys.stdout.write("\n")
        return 0
    space = len(t3.config_space())
    print(
        f"T3 on {gpu.name}, {M}x{N}x{K}: {space} configs, {pruned} pruned, top {len(rows)} by the model (model-only)"
    )
    for r in rows:
        mark = "  <- picked" if r is best else ""
        print(
            f"  BM={r['BM']:3} BN={r['BN']:3} BK={r['BK']:2} w{r['num_warps']} s{r['num_stages']}  "
            f"{r['median'] * 1e6:10.1f} us  smem {r['smem']:6}  {t3.bound(gpu, M, N, K, t3.TileConfig(r['BM'], r['BN'], r['BK'], r['num_warps'], r['num_stages']))}{mark}"
        )
    return 0
