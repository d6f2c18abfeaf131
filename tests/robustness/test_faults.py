"""What a hostile first week found (issue 20): each fault, and that kx now survives it
with a message and leaves nothing behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_testing import BAD, ROOT, run_kx

KERNEL = """\
import torch
import triton
import triton.language as tl
{imports}

@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


x = torch.empty(4096, device="cuda")
k[(1,)](x, BLOCK={block})
{tail}
"""


def kernel_file(path: Path, block: str = "128", imports: str = "", tail: str = "") -> Path:
    path.write_text(KERNEL.format(block=block, imports=imports, tail=tail))
    return path


def compile_(path: Path, **fields):
    return compile_file(
        CompileRequest(str(path), target="cuda:90", **fields), use_cache=fields.pop("cache", False)
    )


def test_a_layout_that_aborts_triton_is_a_message(tmp_path):
    from kx_core.layout.linear import LayoutError, linear_bases

    bad = "#ttg.nvidia_mma<{versionMajor = 99, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
    with pytest.raises(LayoutError, match=r"crashed \(signal 6\)"):
        linear_bases(bad, [64, 64])
    good = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    assert len(linear_bases(good, [64, 64]).lane) == 5  # the service came back
    with pytest.raises(LayoutError, match="rank 2 but the shape"):
        linear_bases(good, [64])
    with pytest.raises(LayoutError, match="elements"):
        linear_bases(good, [65536, 65536])
    p = run_kx("layout", bad, "--shape", "64x64")
    assert p.returncode != 0 and "crashed" in p.stderr and "Traceback" not in p.stderr


def test_the_cache_key_covers_path_and_imported_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("KX_CACHE_DIR", str(tmp_path / "cache"))
    results = []
    for folder, block in (("a", "128"), ("b", "256")):
        d = tmp_path / folder
        d.mkdir()
        (d / "sizes.py").write_text(f"BLOCK = {block}\n")
        f = kernel_file(d / "kernel.py", block="sizes.BLOCK", imports="import sizes")
        results.append(compile_file(CompileRequest(str(f), target="cuda:90")))
    assert [r.kernels[0].launch.constexprs["BLOCK"] for r in results] == [128, 256]
    assert not any(r.from_cache for r in results)
    a = tmp_path / "a" / "kernel.py"
    again = compile_file(CompileRequest(str(a), target="cuda:90"))
    assert again.from_cache and again.kernels[0].launch.constexprs["BLOCK"] == 128
    (tmp_path / "a" / "sizes.py").write_text("BLOCK = 512\n")
    edited = compile_file(CompileRequest(str(a), target="cuda:90"))
    assert not edited.from_cache and edited.kernels[0].launch.constexprs["BLOCK"] == 512
    p = run_kx("compile", str(a), "--target", "cuda:90", "--json")
    assert json.loads(p.stdout)["from_cache"] is True


def test_a_broken_cache_folder_means_no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("KX_CACHE_DIR", str(blocker))
    r = compile_file(CompileRequest(str(kernel_file(tmp_path / "k.py")), target="cuda:90"))
    assert r.ok and r.kernels[0].status == "compiled"
    (d,) = [d for d in r.diagnostics if d.kind == "tool"]
    assert "cache" in d.message and "without it" in d.message


def test_the_cache_is_pruned_oldest_first(tmp_path):
    from kx_core.compile.jobs import cache

    for i in range(10):
        f = tmp_path / f"{i}.json"
        f.write_bytes(b"x" * 1000)
        os.utime(f, (i, i))
    assert cache.prune(tmp_path, limit=5000) == 6
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["6.json", "7.json", "8.json", "9.json"]


def test_a_background_process_neither_holds_the_compile_nor_outlives_it(tmp_path):
    marker = f"kx-sleeper-{os.getpid()}"
    f = kernel_file(tmp_path / "bg.py", tail=f'import os\nos.system("exec -a {marker} sleep 300 &")')
    started = time.perf_counter()
    r = compile_(f, timeout_s=60)
    assert r.ok and time.perf_counter() - started < 30  # no false timeout
    time.sleep(0.3)
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 1


def test_the_worker_dies_with_kx(tmp_path):
    # its own temporary folder: other kx processes on the machine make kx-job-* folders too
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kx_core.cli",
            "compile",
            str(BAD / "infinite_loop.py"),
            "--no-cache",
            "--timeout",
            "120",
        ],
        # a runtime folder where no warm worker answers: the worker is kx's own child
        env=dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp), KX_RUNTIME_DIR=str(tmp / "rt")),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    workers: list[int] = []
    while time.time() < deadline and not workers:
        time.sleep(0.5)
        out = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout
        workers = [int(x) for x in out.split()]
    assert workers, "the worker never started"
    time.sleep(2)  # it is in the file's loop now
    p.send_signal(signal.SIGKILL)
    p.wait()
    time.sleep(2)
    for pid in workers:
        assert (
            not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
        )
    assert workers and list(tmp.glob("kx-job-*")) == []


def test_a_byte_order_mark_parses_and_non_utf8_is_located(tmp_path):
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + kernel_file(tmp_path / "plain.py").read_bytes())
    assert compile_(bom).ok and compile_(bom).kernels[0].status == "compiled"
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"import torch\n# caf\xe9\n")
    r = compile_(latin)
    (d,) = r.diagnostics
    assert d.kind == "syntax" and d.line == 2 and "not utf-8" in d.message.lower()
    p = run_kx("compile", str(latin))
    assert p.returncode == 1 and ":2: syntax" in p.stdout


def test_workers_do_not_import_from_the_working_folder(tmp_path):
    (tmp_path / "argparse.py").write_text("raise SystemExit('the working folder ran')\n")
    mlir = ROOT / "kx_core" / "data" / "lit" / "cse.mlir"
    from kx_core.base.workers import LAUNCHER

    # the kx command as a console script runs it: not through `python -m`, which would
    # put the working folder first for the command itself
    p = subprocess.run(
        [sys.executable, LAUNCHER, "kx_core.cli", "lit", str(mlir)],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "the working folder ran" not in p.stdout + p.stderr and "PASS" in p.stdout


def test_running_out_of_memory_is_a_located_diagnostic(tmp_path):
    f = tmp_path / "big.py"
    f.write_text("import torch\n\nx = torch.empty(8 * 2**30, dtype=torch.uint8, device='cpu')\nx.fill_(1)\n")
    r = compile_(f, memory_limit_mb=4096)
    (d,) = [d for d in r.diagnostics if d.fatal]
    assert d.kind == "out-of-memory" and d.line == 3 and "4096 MiB" in d.message


GROWING = """\
(datatype Math (Num i64) (Add Math Math))
(let e (Num 1))
(rule ((= x (Num n))) ((Num (+ n 1))))
(rule ((= a (Num n)) (= b (Num m))) ((Add a b)))
(rule ((= a (Add x y)) (= b (Add z w))) ((Add a b)))
(run-schedule (saturate (run)))
"""


def test_egglog_runs_under_hard_limits(tmp_path):
    egg = tmp_path / "grow.egg"
    egg.write_text(GROWING)
    p = run_kx("egraph", str(egg), "--steps", "3", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["report"]["iterations"] == 3
    started = time.perf_counter()
    p = run_kx("egraph", str(egg), "--steps", "100000", "--node-limit", "100000000", "--seconds", "3")
    assert p.returncode == 1 and "ran past 3 s" in p.stderr and time.perf_counter() - started < 60
    deep = "(" * 3000 + "x" + ")" * 3000
    p = run_kx("egraph", deep)
    assert p.returncode == 2 and "nests deeper" in p.stderr
    panic = tmp_path / "panic.egg"
    panic.write_text("(datatype M (N i64))\n(let a (N (/ 1 0)))\n")
    p = run_kx("egraph", str(panic))
    assert p.returncode == 1 and "Panic" in p.stderr and "Traceback" not in p.stderr
