"""kx's capture of real-file drivers against plain Triton compiling the same configs.

    python benchmarks/bench_capture_corpus.py [--only ID,...] [--rounds 1] [--jobs N] [--json OUT]
        [--kx-root OTHER_CHECKOUT ...] [--ce-wrapper triton_wrapper.py]

For each corpus entry (drivers of benchmarks/real_files/manifest*.json whose upstream files
`extract.py` has put under .realfiles/), in turn, interleaved round by round:

- **kx**: a cold capture of the driver as a user runs it (`compile_file`, a fresh worker
  process, empty kx and Triton caches, target cuda:90 as the H200), wall time;
- **raw**: a fresh Python process that imports the driver's kernel modules (the driver's
  own import lines and `_corpus_support` calls, nothing it launches) and calls
  `triton.compile` on every specialization kx captured, one after another, as Triton's
  autotuner does in a real run. Triton's own compile time is the floor kx is held to.

With --kx-root OTHER, each other checkout captures the same file right after this one (in
odd rounds right before it: the side that runs last finds the page cache warmest; use
--rounds 2 for a figure in which each order counts once).

With --ce-wrapper (on a GPU machine), Compiler Explorer's Triton wrapper runs each driver
too, and kx's wall is compared with it (target <= 0.5x). Prints per file and in total:
both walls, their ratio (target <= 1.1x), and both sides'
CPU seconds (children included), which tells lost parallelism (kx's CPU seconds close to
raw's but its wall not shorter on many cores) from added work (more CPU seconds). Run it
on the 16-core GPU machine too: what serialises configs is invisible on 2 cores.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# every real-file table, the fresh corpora's too (dion_newton_schulz of corpus 8: hundreds of
# autotune configs, where the cores' share of the work shows)
MANIFESTS = tuple(sorted(p.name for p in (ROOT / "benchmarks" / "real_files").glob("manifest*.json")))
# Autotuned kernels with dozens of configs, from five projects; each runs in about a minute
# on 2 cores
DEFAULT = (
    "liger_rms_norm",
    "liger_cross_entropy",
    "liger_layer_norm",
    "mamba_layer_norm",
    "fla_norm_gate",
    "ao_int8_mm",
    "ao_jagged_float8_scales",
)

# The raw side. Example spec: {"target": {...}, "kernels": [{"name": "rms_norm_fwd",
# "file": ".../rms_norm.py", "specialization": {...}}]}
_RAW = r"""
import json, os, sys, time
t0 = time.perf_counter()
import triton
from triton.backends.compiler import GPUTarget
sys.path.insert(0, {root!r})
from kx_core.compile.capturing.replay import replay
from kx_core.records.results import Specialization
t_import = time.perf_counter() - t0
spec = json.loads(open(sys.argv[2]).read())
exec(compile(open(sys.argv[1]).read(), sys.argv[3], "exec"), {{"__name__": "driver_imports"}})

def find(name, file):
    for mod in list(sys.modules.values()):
        if os.path.realpath(getattr(mod, "__file__", None) or "") != os.path.realpath(file):
            continue
        for value in list(vars(mod).values()):
            fn = value
            while fn is not None and not hasattr(fn, "params"):
                fn = getattr(fn, "fn", None)
            if fn is not None and getattr(getattr(fn, "fn", None), "__name__", None) == name:
                return fn
    raise LookupError(f"{{name}} not found in {{file}}")

t = spec["target"]
target = GPUTarget(t["backend"], t["arch"], t.get("warp_size", 32))
t1 = time.perf_counter()
for k in spec["kernels"]:
    replay(find(k["name"], k["file"]), Specialization.from_json(k["specialization"]), target)
print(json.dumps({{"import_s": t_import, "compile_s": time.perf_counter() - t1, "n": len(spec["kernels"])}}))
"""


def entries() -> dict[str, dict]:
    found = {}
    for name in MANIFESTS:
        for e in json.loads((ROOT / "benchmarks" / "real_files" / name).read_text()):
            found[e["id"]] = e
    return found


def import_prelude(driver: Path) -> str:
    """The driver's top-level imports and `_corpus_support.*(...)` calls, in order: what
    makes its kernel modules importable, without the tensors and launches after them."""
    tree = ast.parse(driver.read_text())
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            keep.append(node)
        elif isinstance(node, (ast.Expr, ast.Assign)) and "_corpus_support" in ast.unparse(node):
            keep.append(node)
    return ast.unparse(ast.Module(body=keep, type_ignores=[]))


EXTRA: list[str] = []  # --extra-site: packages a user of those libraries has (einops)


def _env(entry: dict, cache: str) -> dict[str, str]:
    paths = [str(ROOT / p) for p in entry["pythonpath"]] + EXTRA + [str(ROOT)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "KX_"))}
    return dict(env, PYTHONPATH=os.pathsep.join(paths), TRITON_CACHE_DIR=cache, MPLBACKEND="Agg")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def kx_cold(entry: dict, jobs: int | None, kx_root: Path = ROOT):
    """One cold capture in a child process of this script (so its CPU seconds, the
    worker's included, are counted alone), by the kx checkout at `kx_root` (another
    commit's worktree, to bisect)."""
    code = (
        "import json, os, sys, tempfile, time\n"
        f"sys.path.insert(0, {str(kx_root)!r})\n"
        "from kx_core.compile import CompileRequest, compile_file\n"
        "t = time.perf_counter()\n"
        f"r = compile_file(CompileRequest({str(ROOT / entry['run'])!r}, target='cuda:90', gpu='h200', cold=True,"
        f" jobs={jobs!r}, timeout_s=900, cwd=tempfile.mkdtemp()), use_cache=False)\n"
        "print(json.dumps({'wall': time.perf_counter() - t, 'result': r.to_json()}))\n"
    )
    env = _env(entry, tempfile.mkdtemp(prefix="kx-bench-triton-"))
    # that checkout's kx alone: this one's root (for the raw side) is left off the path
    env["PYTHONPATH"] = os.pathsep.join([str(kx_root), *EXTRA, *(str(ROOT / p) for p in entry["pythonpath"])])
    env["KX_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-bench-cache-")
    env["KX_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="kx-bench-rt-")
    cpu0, start = _children_cpu(), time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(kx_root)
    )
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if p.returncode != 0:
        raise RuntimeError(f"kx capture of {entry['id']} failed:\n{p.stderr[-2000:]}")
    from kx_core.records.results import CompileResult

    out = json.loads(p.stdout.strip().splitlines()[-1])
    return wall, cpu, CompileResult.from_json(out["result"])


def raw_compile(entry: dict, result) -> tuple[float, float, dict]:
    kernels = [
        {"name": k.name, "file": k.source_file, "specialization": k.specialization.to_json()}
        for k in result.kernels
        if k.specialization is not None and k.source_file and k.status == "compiled"
    ]
    work = Path(tempfile.mkdtemp(prefix="kx-bench-raw-"))
    (work / "spec.json").write_text(json.dumps({"target": result.target.to_json(), "kernels": kernels}))
    driver = ROOT / entry["run"]
    (work / "prelude.py").write_text(import_prelude(driver))
    cpu0, start = _children_cpu(), time.perf_counter()
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            _RAW.format(root=str(ROOT)),
            str(work / "prelude.py"),
            str(work / "spec.json"),
            str(driver),
        ],
        capture_output=True,
        text=True,
        env=_env(entry, str(work / "triton-cache")),
        cwd=str(work),
    )
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if p.returncode != 0:
        raise RuntimeError(f"raw compile of {entry['id']} failed:\n{p.stderr[-2000:]}")
    return wall, cpu, json.loads(p.stdout.strip().splitlines()[-1])


def ce_wrapper(entry: dict, wrapper: Path) -> tuple[float, float]:
    """Compiler Explorer's Triton wrapper (its etc/scripts/triton_wrapper.py, fetched by the
    user, never kept in this repo) on the driver, as CE runs it: the file runs with every
    JITFunction launch turned into a warm-up, on the local GPU, fresh Triton cache. Wall
    and CPU seconds (needs a GPU and torch, as CE's own machines have)."""
    work = Path(tempfile.mkdtemp(prefix="kx-bench-ce-"))
    env = _env(entry, str(work / "triton-cache"))
    cpu0, start = _children_cpu(), time.perf_counter()
    # the wrapper took `--input_file FILE` until 2026 and takes the file as its first
    # positional argument since: asked of its own argument parser's text
    takes_flag = '"--input_file"' in wrapper.read_text()
    p = subprocess.run(
        [
            sys.executable,
            str(wrapper.resolve()),  # (it runs in a folder of its own)
            *(["--input_file"] if takes_flag else []),
            str(ROOT / entry["run"]),
            "--output_file",
            str(work / "out.s"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(work),
    )
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if p.returncode != 0:
        raise RuntimeError(f"CE's wrapper on {entry['id']} failed:\n{p.stderr[-2000:]}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(DEFAULT), help="comma-separated entry ids")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=None, help="kx's --jobs (default: kx's own, the cores)")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument(
        "--no-warmup",
        dest="warmup",
        action="store_false",
        help="skip the untimed first capture (it pages in torch and Triton for whichever side runs first)",
    )
    ap.add_argument(
        "--kx-root",
        action="append",
        default=[],
        help="another kx checkout to capture with, beside this one (repeatable): e.g. a worktree of an older commit",
    )
    ap.add_argument(
        "--extra-site", action="append", default=[], help="a folder of packages the drivers import"
    )
    ap.add_argument(
        "--ce-wrapper",
        type=Path,
        help="Compiler Explorer's etc/scripts/triton_wrapper.py: time it on each driver too (GPU machine)",
    )
    args = ap.parse_args()
    EXTRA.extend(str(Path(p).resolve()) for p in args.extra_site)
    known = entries()
    ids = [i for i in args.only.split(",") if i]
    # what extract.py writes for an entry (a tutorial run as it is has no pythonpath of its own)
    missing = [i for i in ids if not all((ROOT / x["dest"]).exists() for x in known[i]["extract"])]
    if missing:
        sys.exit(f"not extracted (benchmarks/real_files/extract.py): {', '.join(missing)}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# bench_capture_corpus  {cores} cores  rounds {args.rounds}  kx jobs {args.jobs or 'default'}")
    if args.warmup:  # page in torch, Triton, ptxas and the files, for every checkout alike
        kx_cold(known[ids[0]], args.jobs)
    others = [Path(p).resolve() for p in args.kx_root]
    for other in others:
        if not (other / "kx_core" / "__init__.py").is_file():
            sys.exit(f"--kx-root {other}: no kx_core there")
    rows = []
    for r in range(args.rounds):
        for i in ids:
            # Odd rounds run the other checkouts before this one: the side that runs last on a
            # file found the page cache warmest (on the H100 the last side was the fastest in
            # both of one session's runs), so with two rounds each order counts once
            first = {}
            if r % 2 == 1:
                for other in others:
                    first[other] = kx_cold(known[i], args.jobs, other)
            kx_wall, kx_cpu, result = kx_cold(known[i], args.jobs)
            try:
                raw_wall, raw_cpu, inside = raw_compile(known[i], result)
            except RuntimeError as e:
                # a module that defines its kernels only where a GPU is (torchao's
                # `if has_triton():`) has none to find on a machine without one: that file
                # has no raw side here, and is left out of the totals, said
                # (Inductor's kernels too: their modules are its cache's); the other
                # checkouts still run it, for this checkout against them
                print(f"{i:28} no raw side here: {str(e).strip().splitlines()[-1][:160]}", flush=True)
                raw_wall, raw_cpu = 0.0, 0.0
                inside = {"n": sum(k.status == "compiled" for k in result.kernels), "compile_s": 0.0}
            row = {
                "id": i,
                "round": r,
                "compiles": inside["n"],
                "captured": sum(k.status == "compiled" for k in result.kernels),
                "kx_wall": kx_wall,
                "kx_cpu": kx_cpu,
                "raw_wall": raw_wall,
                "raw_cpu": raw_cpu,
                "raw_compile_s": inside["compile_s"],
                "others": {},
            }
            line = f"{i:28} {inside['n']:>4} compiles  kx {kx_wall:6.1f} s ({kx_cpu:6.1f} cpu)  " + (
                f"raw {raw_wall:6.1f} s ({raw_cpu:6.1f} cpu)  {kx_wall / raw_wall:5.2f}x"
                if raw_wall
                else "raw -"
            )
            # each side printed as it ends: a run cut short by a time limit keeps what it measured
            print(line, end="", flush=True)
            for other in others:  # interleaved with this checkout's run, same load
                o_wall, o_cpu, o_result = (
                    first[other] if other in first else kx_cold(known[i], args.jobs, other)
                )
                n = sum(k.status == "compiled" for k in o_result.kernels)
                row["others"][str(other)] = {"wall": o_wall, "cpu": o_cpu, "captured": n}
                print(
                    f"  | {other.name}: {o_wall:6.1f} s ({o_cpu:6.1f} cpu, {n} compiled) this/that {kx_wall / o_wall:4.2f}x",
                    end="",
                    flush=True,
                )
            if args.ce_wrapper:
                try:
                    ce_wall, ce_cpu = ce_wrapper(known[i], args.ce_wrapper)
                    row["ce_wall"], row["ce_cpu"] = ce_wall, ce_cpu
                    print(
                        f"  | CE wrapper {ce_wall:6.1f} s ({ce_cpu:6.1f} cpu) kx/CE {kx_wall / ce_wall:4.2f}x",
                        end="",
                    )
                except RuntimeError as e:
                    print(f"  | CE wrapper failed: {str(e).strip().splitlines()[-1][:120]}", end="")
            rows.append(row)
            print(flush=True)
    kx = sum(x["kx_wall"] for x in rows)
    kc = sum(x["kx_cpu"] for x in rows)
    # (files whose raw side could not run, Inductor's kernels among them, are left out here)
    with_raw = [x for x in rows if x.get("raw_wall")]
    raw = sum(x["raw_wall"] for x in with_raw)
    rc = sum(x["raw_cpu"] for x in with_raw)
    if with_raw:
        kr, kcr = sum(x["kx_wall"] for x in with_raw), sum(x["kx_cpu"] for x in with_raw)
        print(
            f"total: kx {kr:.1f} s vs raw {raw:.1f} s = {kr / raw:.2f}x wall (target <= 1.1x); "
            f"cpu {kcr:.0f} vs {rc:.0f} s = {kcr / rc:.2f}x"
        )
    with_ce = [x for x in rows if "ce_wall" in x]
    if with_ce:
        kw, cw = sum(x["kx_wall"] for x in with_ce), sum(x["ce_wall"] for x in with_ce)
        print(
            f"total: kx {kw:.1f} s vs Compiler Explorer's wrapper {cw:.1f} s on {len(with_ce)} files = "
            f"{kw / cw:.2f}x wall (target <= 0.5x)"
        )
    for other in others:
        ow = sum(x["others"][str(other)]["wall"] for x in rows)
        oc = sum(x["others"][str(other)]["cpu"] for x in rows)
        print(
            f"total: {other.name} {ow:.1f} s ({oc:.0f} cpu): this checkout / that = {kx / ow:.2f}x wall, {kc / oc:.2f}x cpu"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"cores": cores, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
