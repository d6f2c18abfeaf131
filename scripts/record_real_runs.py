"""Ground truth for capture: run kernel files for real on a GPU and record every kernel
Triton compiled (name, constexprs, warps, stages, signature) or failed to compile.

    python3 scripts/record_real_runs.py FILE... --out DIR [--pythonpath DIR]... [--jobs N]
    python3 scripts/record_real_runs.py --manifest benchmarks/real_files/manifest.json --out DIR

Each file runs as `python FILE` would, in a child process of its own with a scratch
folder as its working directory, and `triton.compiler.compile` wrapped to log what it
compiles (every autotune config, warmup and direct launches alike, and Inductor's
kernels: TORCHINDUCTOR_COMPILE_THREADS=1 keeps its compiles in the process), with each
compile's Triton hash and the sha256 of its PTX (kx's capture must give both). With
--cubin-figures each compile's cubin is kept and read after the run as kx reads its own:
registers and spills (cuobjdump), the sha256 of the cubin and of its SASS (nvdisasm, the
header and `//## File` folders left out: scripts/record_cute_runs.portable_sass). By default
`triton.testing.do_bench` calls the benchmarked function once and returns 1.0 ms: every
kernel a benchmark or an autotuner launches is still compiled, in a fraction of the time
(the set of compiled kernels does not depend on timings); --real-timing keeps it. Writes
DIR/<name>.json per file and DIR/all.json with all of them. Runs on the GPU machine;
tests/compile/test_real_world.py compares kx's capture with fixtures/real_world/ground/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

_CHILD = r"""
import hashlib, json, os, re, runpy, sys, traceback
import triton
import triton.compiler as tc

log = []

def _plain(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    inner = getattr(v, "value", None)
    if isinstance(inner, (bool, int, float, str)):
        return inner
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return str(v)

def _describe(src):
    fn = getattr(src, "fn", None)
    names = [p.name for p in getattr(fn, "params", [])]
    def pname(path):
        head = names[path[0]] if path and path[0] < len(names) else str(path[0])
        return ".".join([head, *(str(p) for p in path[1:])])
    return {
        "kernel": getattr(getattr(fn, "fn", None), "__name__", None) or getattr(src, "name", "?"),
        "file": getattr(getattr(getattr(fn, "fn", None), "__code__", None), "co_filename", None),
        "constexprs": {pname(k): _plain(v) for k, v in getattr(src, "constants", {}).items()},
        "signature": {str(k): str(v) for k, v in getattr(src, "signature", {}).items()},
    }

real_compile = tc.compile

# Example: '.file 1 "/work/main/x.py"' -> '.file 1 "x.py"'
def _portable(ptx):
    return re.sub(r'^(\s*\.file\s+\d+\s+)"(?:[^"]*/)?([^/"]*)"', r'\1"\2"', ptx, flags=re.M)

# Example: "\t.section\t.debug_info\n\t{\n.b32 73 ...\n\t}"
_DEBUG_INFO = re.compile(r"^[ \t]*\.section[ \t]+\.debug_info\s*\{.*?^[ \t]*\}[ \t]*$", re.M | re.S)

_LOC_FILE = re.compile(r"^[ \t]*\.(?:loc|file)\b.*\n?", re.M)
_DEBUG_ANY = re.compile(r"^[ \t]*\.section[ \t]+\.debug_\w+\s*\{[^{}]*\}[ \t]*$", re.M)

def compile(src, target=None, options=None, *args, **kwargs):
    entry = _describe(src) if hasattr(src, "fn") else {"kernel": str(src)}
    try:
        kernel = real_compile(src, target=target, options=options, *args, **kwargs)
    except BaseException as e:
        entry.update(status="error", error=f"{type(e).__name__}: {str(e).splitlines()[-1] if str(e) else ''}")
        log.append(entry)
        raise
    md = kernel.metadata
    ptx = kernel.asm.get("ptx") if hasattr(kernel, "asm") else None
    entry.update(status="compiled", num_warps=int(md.num_warps), num_stages=int(md.num_stages),
                 shared=int(md.shared), maxnreg=getattr(md, "maxnreg", None),
                 hash=getattr(md, "hash", None) or getattr(kernel, "hash", None),
                 ptx_sha256=hashlib.sha256(ptx.encode()).hexdigest() if isinstance(ptx, str) else None,
                 # the same with each `.file N "path"` cut to its file name: the PTX names the
                 # source's and Triton's absolute paths, which differ from machine to machine
                 ptx_sha256_portable=hashlib.sha256(_portable(ptx).encode()).hexdigest() if isinstance(ptx, str) else None,
                 # and without its DWARF .debug_info section, which holds the source's folder
                 # (and lengths that follow from it): the same kernel at any path
                 ptx_sha256_nodebug=hashlib.sha256(_DEBUG_INFO.sub("", _portable(ptx)).encode()).hexdigest()
                 if isinstance(ptx, str) else None,
                 # and the code alone, no line info at all (scripts/record_cute_runs.code_ptx):
                 # the same kernel under another torch, whose inlined helpers sit elsewhere
                 ptx_sha256_code=hashlib.sha256(_DEBUG_ANY.sub("", _LOC_FILE.sub("", ptx)).encode()).hexdigest()
                 if isinstance(ptx, str) else None)
    keep = os.environ.get("KX_KEEP_CUBINS")
    cubin = kernel.asm.get("cubin") if keep and hasattr(kernel, "asm") else None
    if isinstance(cubin, bytes):
        # read after the run by the parent (--cubin-figures): nothing but a file write here
        entry["cubin_file"] = os.path.join(keep, f"{len(log)}.cubin")
        entry["entry_name"] = getattr(md, "name", None)
        # the kernel's own source (a generated module's, as Helion's): a PTX that differs
        # from kx's is then read against the code it came from
        entry["source"] = getattr(getattr(src, "fn", None), "src", None)
        with open(entry["cubin_file"], "wb") as f:
            f.write(cubin)
    log.append(entry)
    return kernel

tc.compile = compile
triton.compile = compile
import triton.compiler.compiler as tcc
tcc.compile = compile

if os.environ.get("KX_FAST_TIMING") == "1":
    import torch
    import triton.testing as tt

    def fast_do_bench(fn, *args, quantiles=None, return_mode="mean", **kwargs):
        fn()
        torch.cuda.synchronize()
        if quantiles is not None:
            out = [1.0] * len(quantiles)
            return out[0] if len(out) == 1 else out
        return [1.0] if return_mode == "all" else 1.0

    tt.do_bench = fast_do_bench
    if hasattr(tt, "do_bench_cudagraph"):
        tt.do_bench_cudagraph = fast_do_bench

# Inductor's pad_mm decisions the run timed (kx cannot time them: its ties are a guess), each
# with both times: wrapped when the pass's module loads, without importing torch earlier
pad_mm = []


def _log_pad_mm(module):
    decide = getattr(module, "is_padded_faster", None)
    if decide is None:
        return

    def is_padded_faster(key, ori_time, pad_time):
        padded = decide(key, ori_time, pad_time)
        pad_mm.append({"key": str(key), "ori_time": float(ori_time), "pad_time": float(pad_time), "padded": bool(padded)})
        return padded

    module.is_padded_faster = is_padded_faster


class _AfterImport:
    def __init__(self, name, hook):
        self.name, self.hook = name, hook

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run, hook = spec.loader.exec_module, self.hook

        def exec_module(module):
            run(module)
            hook(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AfterImport("torch._inductor.fx_passes.pad_mm", _log_pad_mm))

path, out = sys.argv[1], sys.argv[2]
sys.argv = [path]
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
status, raised = "ok", ""
try:
    runpy.run_path(path, run_name="__main__")
except SystemExit as e:
    status = f"exit {e.code}"
except BaseException as e:
    # the type and the message's first line (a dynamo error's last line is only its advice),
    # and the traceback's tail for what the line leaves out
    first = (str(e).strip().splitlines() or [""])[0][:400]
    status = f"raised: {type(e).__qualname__}: {first}"
    raised = traceback.format_exc()[-8000:]
with open(out, "w") as f:
    json.dump({"status": status, "compiles": log, "pad_mm": pad_mm, "traceback": raised}, f, indent=1)
"""


def cubin_figures_of(path: str, function: str | None) -> dict:
    """A real compile's cubin as kx shows its own: registers, spills, SASS and the bytes."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import hashlib

    from kx_core.compile.artifacts import resources, sass
    from scripts.record_cute_runs import portable_sass, sha

    with open(path, "rb") as f:
        cubin = f.read()
    usage = resources.cubin_resources(cubin, function)
    return {
        "registers": usage.registers,
        "spills": usage.spills,
        "cubin_sha256": hashlib.sha256(cubin).hexdigest(),
        "sass_sha256_portable": sha(portable_sass(sass.disassemble(cubin))),
    }


def record(
    path: str,
    out_dir: str,
    pythonpath: list[str],
    name: str | None = None,
    fast: bool = True,
    timeout: float = 900,
    inductor_cache_root: str | None = None,
    cubin_figures: bool = False,
) -> dict:
    name = name or os.path.splitext(os.path.basename(path))[0]
    out = os.path.abspath(os.path.join(out_dir, f"{name}.json"))
    scratch = os.path.join(out_dir, "scratch", name)
    os.makedirs(scratch, exist_ok=True)
    # Inductor compiles in this process, where the wrapper above sees it (its worker pool
    # would compile elsewhere), and from scratch (a graph-cache hit compiles nothing)
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        KX_FAST_TIMING="1" if fast else "0",
        TORCHINDUCTOR_COMPILE_THREADS="1",
        TORCHINDUCTOR_FX_GRAPH_CACHE="0",
        TORCHINDUCTOR_AUTOGRAD_CACHE="0",
    )
    if inductor_cache_root:
        # a cache folder of the file's own, by name: Inductor's kernel modules are written
        # there and their paths are in the PTX, so a capture given the same folder
        # (measure.py --inductor-cache-root) compiles byte-identical PTX
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(inductor_cache_root, name)
    paths = [*map(os.path.abspath, pythonpath), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    cubins = os.path.join(scratch, "cubins")
    if cubin_figures:
        os.makedirs(cubins, exist_ok=True)
        env["KX_KEEP_CUBINS"] = cubins
    started = time.perf_counter()
    try:
        p = subprocess.run(
            [sys.executable, "-c", _CHILD, os.path.abspath(path), out],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=scratch,
        )
        tail, code = (p.stdout + p.stderr)[-3000:], p.returncode
    except subprocess.TimeoutExpired as e:
        tail, code = f"timed out after {timeout} s", None
        del e
    try:
        with open(out) as f:
            got = json.load(f)
    except (OSError, ValueError):
        got = {"status": f"child died or timed out (exit {code})", "compiles": []}
    if cubin_figures:
        for c in got["compiles"]:
            if c.get("cubin_file"):
                c.update(cubin_figures_of(c.pop("cubin_file"), c.pop("entry_name", None)))
    import torch
    import triton

    got.update(
        file=os.path.relpath(os.path.abspath(path)),
        triton=triton.__version__,
        torch=torch.__version__,
        gpu=torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        seconds=round(time.perf_counter() - started, 1),
        output_tail=tail,
        fast_timing=fast,
    )
    with open(out, "w") as f:
        json.dump(got, f, indent=1)
    return got


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--pythonpath", action="append", default=[])
    ap.add_argument("--manifest", help="benchmarks/real_files/manifest.json: run every entry")
    ap.add_argument("--only", default="", help="with --manifest: these ids only, comma-separated")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once (the GPU is shared)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per file")
    ap.add_argument("--real-timing", action="store_true", help="keep do_bench as it is (slow)")
    ap.add_argument("--cubin-figures", action="store_true", help="registers, spills, cubin and SASS hashes")
    ap.add_argument("--inductor-cache-root", help="TORCHINDUCTOR_CACHE_DIR=ROOT/<name> for each file")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    jobs = [(f, args.pythonpath, None) for f in args.files]
    if args.manifest:
        with open(args.manifest) as f:
            wanted = set(filter(None, args.only.split(",")))
            for e in json.load(f):
                if wanted and e["id"] not in wanted:
                    continue
                jobs.append((e["run"], [*args.pythonpath, *e.get("pythonpath", [])], e["id"]))

    import threading
    from concurrent.futures import ThreadPoolExecutor

    results: dict[str, dict] = {}
    lock = threading.Lock()

    def one(job):
        path, pp, name = job
        got = record(
            path,
            args.out,
            pp,
            name,
            fast=not args.real_timing,
            timeout=args.timeout,
            inductor_cache_root=args.inductor_cache_root,
            cubin_figures=args.cubin_figures,
        )
        ok = sum(c["status"] == "compiled" for c in got["compiles"])
        bad = len(got["compiles"]) - ok
        print(
            f"{name or path}: {got['status'][:100]}, {ok} compiled, {bad} failed, {got['seconds']} s",
            flush=True,
        )
        with lock:  # all.json is rewritten after every file: a run cut short keeps what it did
            results[name or os.path.splitext(os.path.basename(path))[0]] = got
            with open(os.path.join(args.out, "all.json"), "w") as f:
                json.dump(results, f, indent=1)

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(one, jobs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
