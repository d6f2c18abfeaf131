"""`kx profile FILE`: sampled stall reasons on the lines of every stage (kx_core.bench.profile)."""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.bench.defaults import WINDOW_MS
from kx_core.cli.args import int_in, positive_number, seconds


def add_profile_command(sub) -> None:
    p = sub.add_parser("profile", help="sample a file's kernels on the local GPU: hot lines at every stage")
    p.add_argument("file")
    p.add_argument("--kernel", help="only this kernel")
    p.add_argument(
        "--window-ms",
        type=positive_number,
        default=WINDOW_MS,
        help=f"GPU time sampled per kernel ({WINDOW_MS:g})",
    )
    p.add_argument("--calls", type=int_in(0), default=0, help="sample this many calls of each kernel instead")
    p.add_argument("--proton", action="store_true", help="sample with Proton instead (its per-line figures)")
    p.add_argument("--top", type=int_in(1), default=12, help="hottest lines shown per kernel (12)")
    p.add_argument("--timeout", type=seconds, default=600.0)
    p.add_argument("--json", action="store_true")


def profile_command(args: argparse.Namespace) -> int:
    from kx_core.base.textfile import text_or_empty
    from kx_core.bench.bench import MeasureJob, NoGPU
    from kx_core.bench.requests import ProfileRequest
    from kx_core.ir.hot_lines import attribute, hottest

    try:
        request = ProfileRequest(
            window_ms=args.window_ms, calls=args.calls, kernel=args.kernel, proton=args.proton
        )
        job = MeasureJob(request, args.file).start()
    except NoGPU as e:
        print(f"kx: {e}", file=sys.stderr)
        return 2
    result = job.wait(args.timeout)
    hot = {k.kernel: attribute(k) for k in result.kernels if k.by_pc}
    if args.json:
        out = result.to_json()
        out["hot_lines"] = {name: h.to_json() for name, h in hot.items()}
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
        return 0 if result.ok else 1
    print(f"{result.file} on {result.device} (triton {result.triton_version}), sampled with {result.sampler}")
    for k in result.kernels:
        reasons = sorted(k.reasons.items(), key=lambda kv: -kv[1])[:4]
        print(
            f"  {k.kernel}{'[' + k.config + ']' if k.config else ''}: {k.samples} samples,"
            f" {k.stalled} stalled, over {k.calls} calls ({k.window_ms:.1f} ms)"
            + "".join(f"\n      {r.removeprefix('stalled_'):<20}{n:>10}" for r, n in reasons)
        )
        if k.kernel in hot:
            h = hot[k.kernel]
            texts = {**k.stages, "source": text_or_empty(k.source_file)}
            for row in hottest(h, texts, n=args.top):
                print(
                    f"    {row.stage:>6}:{row.line:<5} {row.samples:>8} {100 * row.share:5.1f}%"
                    f"  {row.top_reason.removeprefix('stalled_'):<18} {row.text[:70]}"
                )
    for d in result.diagnostics:
        print(d, file=sys.stderr)
    return 0 if result.ok else 1
