"""`kx sweep FILE --kernel K --shape M=...,N=...`: shapes x configs, predicted by the
model first, the top and the uncertain measured on every local GPU (kx_core.sweep)."""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.cli import args as cli_args


def add_sweep_verb(sub) -> None:
    p = sub.add_parser(
        "sweep", help="autotune at scale: shapes x configs, predicted, then measured on every GPU"
    )
    p.add_argument("file")
    p.add_argument("--kernel", required=True, help="the autotuned kernel (its Python name)")
    p.add_argument(
        "--shape",
        action="append",
        default=[],
        help="NAME=INT,... given to the entry function, or the kernel's key (M=2048,N=1024,K=4096), or a "
        "wrapper's tensors' sizes (a=2048x4096,b=4096x1024); repeat it; none: the file's own launches",
    )
    p.add_argument("--shapes-file", help="shapes, one NAME=INT,... per line, or a JSON list of objects")
    p.add_argument("--entry", help="the file's function called with each shape (default: the one that fits)")
    p.add_argument(
        "--space",
        help="a config grid instead of the kernel's own: KEY=V1,V2;... (BLOCK_M=64,128;num_warps=4,8)",
    )
    p.add_argument(
        "--target", default=None, help="the target compiled for (default: the local GPU's, else cuda:90)"
    )
    p.add_argument("--gpu", help="the GPU the model places configs on (default: the target's)")
    p.add_argument("--measure", choices=["top-k", "all", "none"], default="top-k", help="what the GPU times")
    p.add_argument("--top-k", type=cli_args.positive_int, default=4, help="configs measured per shape (4)")
    p.add_argument("--gpus", type=cli_args.positive_int, help="measuring workers, GPUs 0..N-1 (default: all)")
    p.add_argument(
        "--devices",
        help="the GPU each measuring worker is pinned to, e.g. 0,0: two workers sharing GPU 0 "
        "(the N-GPU path on one GPU; their timings interfere)",
    )
    p.add_argument(
        "--simulate",
        action="store_true",
        help="no GPU: simulated measuring workers answer with the model's figures (the dispatch path)",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run on a Ray cluster at ADDRESS (HOST:PORT, ray://HOST:PORT or auto; pip install "
        "'kx[ray]'); without ADDRESS a local Ray instance, which Ray registers under this machine's "
        "network address, not loopback alone (its token authentication guards it): use it on a "
        "trusted network only, as any Ray cluster (Ray runs what its clients send)",
    )
    p.add_argument("--jobs", type=cli_args.positive_int, help="configs compiled at once (default: CPU count)")
    p.add_argument(
        "--versus-autotune",
        action="store_true",
        help="also run triton.autotune over the same configs (empty cache): its pick and wall time",
    )
    p.add_argument("--json", action="store_true", help="every figure as JSON on stdout")
    p.add_argument("--csv", metavar="FILE", help="every shape x config figure as CSV")
    p.add_argument(
        "--tuned", metavar="FILE", help="the winners as JSON: per GPU, shape -> triton.Config keywords"
    )
    p.add_argument(
        "--triton", help="compile with this managed Triton version (kx versions add V); --measure none"
    )
    p.add_argument("--python", help="compile with this interpreter's Triton; --measure none")
    p.add_argument("--timeout", type=cli_args.seconds, default=600.0, help="per shape's compile (600 s)")
    p.add_argument(
        "--deadline",
        type=cli_args.seconds,
        help="stop after this many seconds with what was done (as the app's Stop): exit 4, 'stopped'",
    )


def _progress(step: str, done: int, of: int, what: str) -> None:
    width = 24
    filled = int(width * done / of) if of else width
    bar = "#" * filled + "." * (width - filled)
    end = "\n" if done == of or not sys.stderr.isatty() else ""
    sys.stderr.write(f"\r{step:>15} [{bar}] {done}/{of} {what[:50]:<50}{end}")
    sys.stderr.flush()


def _text_or_empty(path: str) -> str:
    """The kernel file's text, or '' where it cannot be read (the sweep says why later)."""
    from kx_core.compile.wire.source_file import KernelFileError, read_kernel_bytes

    try:
        return read_kernel_bytes(path).decode("utf-8", "replace")
    except (KernelFileError, OSError):
        return ""


def sweep_command(args: argparse.Namespace) -> int:
    from kx_core.model.gpu import spec
    from kx_core.sweep.dispatch import DispatchError
    from kx_core.sweep.result import to_csv, tuned_configs
    from kx_core.sweep.run import SweepRequest, sweep
    from kx_core.sweep.space import SpaceError, check_space_keys, parse_shape, parse_space, shapes_from_file

    try:
        shapes = [parse_shape(s) for s in args.shape]
        if args.shapes_file:
            shapes += shapes_from_file(args.shapes_file)
        space = tuple(parse_space(args.space)) if args.space else None
        if space:  # a key the kernel does not take: said now, not every config "pruned"
            check_space_keys(_text_or_empty(args.file), args.kernel, space)
        gpu = spec(args.gpu) if args.gpu else None
    except (SpaceError, KeyError, ValueError, OSError) as e:
        print(f"kx sweep: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    from kx_core.base.triton_envs import VersionError
    from kx_core.cli.versions import resolve_triton_option

    try:
        resolve_triton_option(args)
    except VersionError as e:
        print(f"kx sweep: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    if args.python and args.measure != "none":
        # the measuring workers time what kx's own Triton builds: another version's ranking
        # beside this one's times would be two builds in one table
        print("kx sweep: --triton/--python compile another Triton: give --measure none", file=sys.stderr)
        return cli_args.EXIT_USAGE
    from kx_core.records.target import TargetError, default_spec, parse_target

    args.target = default_spec(args.target)  # as `kx compile`: the local GPU, else cuda:90
    try:
        parse_target(args.target)  # 'local' on a machine without a GPU: said here, not deep in the sweep
    except TargetError as e:
        print(f"kx sweep: {e}: give --target cuda:90 (or another) to compile without one", file=sys.stderr)
        return cli_args.EXIT_USAGE
    if args.ray:  # nothing answering there is said now, not retried by Ray for ever
        from kx_core.sweep.ray_address import RayAddressError, check

        try:
            check(args.ray)
        except RayAddressError as e:
            print(f"kx sweep: {e}", file=sys.stderr)
            return cli_args.EXIT_USAGE
    req = SweepRequest(
        args.file, args.kernel, tuple(shapes), space, args.entry, args.target, gpu, args.measure,
        args.top_k, args.gpus, args.simulate, args.jobs, args.versus_autotune, args.timeout,
        python=args.python, ray=args.ray,
    )  # fmt: skip
    if args.devices:  # read by each measuring worker's start (kx_core.sweep.dispatch.device_of)
        import os

        os.environ["KX_SWEEP_DEVICES"] = args.devices
    import threading

    stop = threading.Event()
    timer = threading.Timer(args.deadline, stop.set) if args.deadline else None
    if timer is not None:  # a batch run with a fixed budget keeps what it measured
        timer.daemon = True
        timer.start()
    try:
        result = sweep(req, progress=_progress, stop=stop)
    except DispatchError as e:
        print(f"kx sweep: {e}", file=sys.stderr)
        return cli_args.EXIT_FAILED
    except SpaceError as e:  # no call of the kernel the plan could find (kx_core.sweep.calls)
        print(f"kx sweep: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE
    except KeyboardInterrupt:
        return cli_args.EXIT_INTERRUPTED
    if args.csv:
        with open(args.csv, "w", encoding="utf-8", newline="") as f:
            f.write(to_csv(result))
    if args.tuned:
        with open(args.tuned, "w", encoding="utf-8") as f:
            json.dump(tuned_configs(result), f, indent=1)
    if args.json:
        json.dump(result.to_json() | {"summary": result.summary()}, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(format_sweep(result))
    if any(c.error for c in result.cases):
        for c in result.cases:
            if c.error:
                print(f"kx sweep: {c.label}: {c.error}", file=sys.stderr)
        return cli_args.EXIT_FAILED
    if result.stopped or (args.measure != "none" and result.measured == "none"):
        return cli_args.EXIT_INCOMPLETE
    return cli_args.EXIT_OK


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.1f}%"


def format_sweep(r) -> str:
    how = {"gpu": "measured", "simulated": "SIMULATED (the model's figures, no GPU)", "none": "not measured"}
    out = [f"{r.kernel} in {r.file}: {len(r.cases)} shape(s), {how[r.measured]}, {r.wall_s:.1f} s"]
    for key, n in r.shares.items():
        out.append(f"  {key}: {n} config(s) measured")
    for c in r.cases:
        live = [f for f in c.configs if f.pruned is None]
        timed = [f for f in c.configs if f.measured_us is not None]
        out.append("")
        out.append(f"{c.label}  ({len(c.configs)} configs, {len(c.configs) - len(live)} pruned, {len(timed)} measured"
                   f"; model on {c.model_gpu})")  # fmt: skip
        if c.error:
            out.append(f"  error: {c.error}")
            continue
        best = next((f for f in c.configs if f.label == c.winner), None)
        if best is not None:
            out.append(
                f"  winner        {c.winner}  {best.measured_us:.2f} us (model rank {best.model_rank})"
            )
        pick = next((f for f in c.configs if f.model_rank == 1), None)
        if pick is not None:
            t = (
                f"{pick.measured_us:.2f} us, regret {_pct(c.regret_model)}"
                if pick.measured_us
                else f"predicted {pick.predicted_us:.2f} us"
            )
            out.append(f"  model's pick  {pick.label}  {t}")
        if c.default and c.regret_default is not None:
            out.append(f"  default       {c.default}  regret {_pct(c.regret_default)}")
        if c.spearman is not None or c.winner_in_top3 is not None:
            rho = "-" if c.spearman is None else f"{c.spearman:.2f}"
            out.append(
                f"  rank accuracy Spearman {rho}, winner in the model's top 3: {'yes' if c.winner_in_top3 else 'no'}"
            )
        if c.shipped is not None:
            out.append(
                f"  binaries      {c.shipped} from the compile side, {c.compiled_again} compiled again where measured"
            )
        if c.triton_pick:
            out.append(
                f"  triton.autotune picked {c.triton_pick} in {c.triton_autotune_s:.1f} s (compiles included)"
            )
        for f in c.configs:
            if f.pruned:
                out.append(f"  pruned        {f.label}: {f.pruned}")
        out += [f"  note: {n}" for n in c.notes]
    s = r.summary()
    if s["measured_cases"]:
        out.append("")
        out.append(
            f"over {s['measured_cases']} measured shape(s): mean Spearman "
            f"{'-' if s['mean_spearman'] is None else format(s['mean_spearman'], '.2f')}, winner in the top 3 in "
            f"{100 * s['winner_in_top3']:.0f}%, mean regret of the model's pick {_pct(s['mean_regret_model'])}"
        )
    if r.triton_autotune_s:
        out.append(
            f"triton.autotune over the same configs: {r.triton_autotune_s:.1f} s; this sweep: {r.wall_s:.1f} s"
        )
    out += [f"note: {n}" for n in r.notes]
    return "\n".join(out)
