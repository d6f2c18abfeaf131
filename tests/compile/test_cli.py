"""The `kx` command line, run as a subprocess like a user would."""

from __future__ import annotations

import json
import subprocess

from kx_testing import BAD, KERNELS, ROOT, run_kx


def kx(*args: str, cache: bool = False) -> subprocess.CompletedProcess:
    return run_kx(*args, no_cache=not cache)


def test_json_has_exactly_the_documented_shape():
    p = kx("compile", str(KERNELS / "two_kernels.py"), "--target", "sm_80", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert set(doc) == {"file", "target", "triton_version", "kernels", "diagnostics", "from_cache", "build"}
    assert set(doc["build"]) == {"file", "content", "target", "gpu", "triton", "options", "kernel", "config"}
    assert doc["target"] == "cuda:80" and doc["diagnostics"] == []
    for k in doc["kernels"]:
        assert set(k) == {
            "name", "status", "config", "launch", "stages", "metadata", "passes", "message", "after_placeholder",
            "chosen", "model_lines"
        }  # fmt: skip
        assert k["status"] == "compiled" and k["config"] is None and k["passes"] == []
        assert k["model_lines"] == []  # a plain Triton file: no torch.compile kernels
        assert k["after_placeholder"] is None
        assert {"ttir", "ttgir", "llir", "ptx", "sass"} <= set(k["stages"])
        md = k["metadata"]
        assert {"num_warps", "num_stages", "shared", "registers", "spills"} <= set(md)
        assert isinstance(md["registers"], int) and md["registers"] > 0
        assert len(k["launch"]["grid"]) == 3


def test_exit_status_one_for_fatal_diagnostics_four_for_nothing_launched():
    p = kx("compile", str(BAD / "syntax_error.py"), "--json")
    assert p.returncode == 1
    (d,) = json.loads(p.stdout)["diagnostics"]
    assert (
        set(d) == {"kind", "message", "file", "line", "column"} and d["kind"] == "syntax" and d["line"] == 9
    )
    # it ran to its end and launched nothing, though it defines kernels: incomplete, not failed
    p = kx("compile", str(KERNELS / "no_launch.py"))
    assert p.returncode == 4 and "not-launched" in p.stdout and "no-launch" in p.stdout
    p = kx("kernels", str(KERNELS / "no_launch.py"), cache=True)  # listing them launches nothing
    assert p.returncode == 0 and "axpy_kernel" in p.stdout


def test_bad_command_lines_exit_two():
    assert kx("compile", str(KERNELS / "vector_add.py"), "--target", "sm_banana").returncode == 2
    p = kx("compile", str(KERNELS / "missing.py"))
    assert p.returncode == 2 and "no such file" in p.stderr


def test_out_writes_each_stage_and_stages_prints_one(tmp_path):
    p = kx(
        "compile",
        str(KERNELS / "no_launch.py"),
        "--kernel",
        "axpy_kernel",
        "--signature",
        "*fp32,*fp32,fp32,i32",
        "--constexpr",
        "BLOCK=256",
        "--out",
        str(tmp_path),
    )
    assert p.returncode == 0, p.stderr
    files = sorted(f.name for f in tmp_path.iterdir())
    # one file per stage of the CUDA backend's descriptor, the derived SASS and ELF too
    assert files == [f"axpy_kernel.{e}" for e in ("elf.txt", "ll", "ptx", "sass", "ttgir", "ttir")]
    assert "tensor<256xf32" in (tmp_path / "axpy_kernel.ttir").read_text()
    assert "EIATTR_REGCOUNT" in (tmp_path / "axpy_kernel.elf.txt").read_text()
    p = kx(
        "stages",
        str(KERNELS / "no_launch.py"),
        "--kernel",
        "axpy_kernel",
        "--signature",
        "*fp32,*fp32,fp32,i32",
        "--constexpr",
        "BLOCK=256",
        "--stage",
        "ttgir",
    )
    assert p.returncode == 0 and p.stdout.strip() == (tmp_path / "axpy_kernel.ttgir").read_text().strip()


def test_out_names_configs_and_specializations(tmp_path):
    p = kx("compile", str(KERNELS / "two_kernels.py"), "--out", str(tmp_path))
    assert p.returncode == 0
    names = {f.name for f in tmp_path.iterdir() if f.suffix == ".ttgir"}
    assert names == {"scale_kernel.ttgir", "row_sum_of_squares.ttgir", "row_sum_of_squares#2.ttgir"}


def test_layout_command_lane_table_and_json():
    blocked = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
    p = kx("layout", blocked, "--shape", "8x64", cache=True)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[1] == "warp 0 lane  0: (0,0) (0,1) (0,2) (0,3)"
    assert lines[1 + 17].startswith("warp 0 lane 17: (1,4) (1,5) (1,6) (1,7)")
    ttgir = ROOT / "fixtures" / "ir" / "3.9.0" / "cuda80" / "matmul.ttgir.mlir"
    p = kx("layout", "--alias", "#blocked1", "--from", str(ttgir), "--shape", "32x64", "--json", cache=True)
    doc = json.loads(p.stdout)
    assert set(doc) == {"layout", "shape", "owners"} and doc["shape"] == [32, 64]
    assert len(doc["owners"]) == 32 * 64 and doc["owners"][0] == [[0, 0, 0]]
    assert doc["layout"].startswith("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]")
    p = kx("layout", "#ttg.blocked<{sizePerThread = [1]}>", "--shape", "8", cache=True)
    assert p.returncode == 1 and "without threadsPerWarp" in p.stderr


def test_layout_command_first_access():
    bad = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>"
    p = kx("layout", bad, "--shape", "128x64", "--elem-bytes", "4", cache=True)
    assert p.returncode == 0, p.stderr
    # lanes run down the rows; each lane's registers (its repetitions) are consecutive
    # columns, so it reads 16 bytes of its own row: 32 sectors, half of each used
    assert "4 per lane, 512 bytes in 32 sectors of 32 B: 50% efficient" in p.stdout


def test_coalesce_command_explains_the_terms():
    p = kx("coalesce", "--shape", "64x64", "--elem-bits", "32", cache=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
    )
    p = kx("coalesce", "--shape", "128x64", "--divisibility", "8", "--json", cache=True)
    doc = json.loads(p.stdout)
    assert doc["terms"]["chosen"] == 2 and doc["terms"]["limited by"] == ["alignment"]
    assert kx("coalesce", "--shape", "64x64", "--order", "0,0", cache=True).returncode == 2


def test_layout_command_shared_banks_and_conversions():
    from kx_core.layout.linear import linear_bases, ownership
    from kx_core.layout.shared import bank_access, placement

    shared = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    reg = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>"
    p = kx("layout", shared, "--shape", "16x16", "--bits", "32", "--reg", reg, "--json", cache=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["offsets"] == placement(shared, [16, 16]).ravel().tolist()
    expected = bank_access(ownership(linear_bases(reg, [16, 16])), placement(shared, [16, 16]), 32)
    assert doc["access"]["conflicts"] == expected.conflicts and doc["access"]["banks"] == list(expected.banks)
    p = kx("layout", shared, "--shape", "16x16", "--bits", "32", "--reg", reg, cache=True)
    assert f"{expected.conflicts} bank conflict" in p.stdout and "lane  1: offset     17  bank 17" in p.stdout
    a = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    b = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>"
    p = kx("layout", a, "--to", b, "--shape", "64x64", "--json", cache=True)
    doc = json.loads(p.stdout)
    assert doc["cost"] == "shared_memory" and doc["triton_trivial"] is False
    p = kx("layout", a, "--to", a, "--shape", "64x64", cache=True)
    assert "registers" in p.stdout and "Triton (Gluon assert_trivial): trivial" in p.stdout


def test_roofline_and_autotune_commands(tmp_path):
    from kx_core.model import autotune as t3
    from kx_core.model import gemm
    from kx_core.model.gpu import RTX3070, local_gpu

    p = kx("roofline", str(KERNELS / "matmul_autotune.py"), "--target", "cuda:90", "--json", cache=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    local = local_gpu()  # the roofline draws the local GPU where there is one, else the target's
    assert doc["gpu"]["name"] == local.name if local else doc["gpu"]["name"].startswith("H100")
    assert len(doc["kernels"]) == 4
    assert {k["work"]["flops"] for k in doc["kernels"]} == {gemm.gemm_flops(512, 512, 512)}
    p = kx("roofline", str(KERNELS / "vector_add.py"), "--gpu", "h200", cache=True)
    assert "H200" in p.stdout and p.stdout.splitlines()[-1].split()[-3] in ("memory", "launch")
    # both byte counts: requested (every load and store) and DRAM (each tensor once)
    doc = json.loads(
        kx("roofline", str(KERNELS / "vector_add.py"), "--json", "--measured", cache=True).stdout
    )
    (work,) = [k["work"] for k in doc["kernels"]]
    assert work["bytes"] >= work["dram_bytes"] > 0
    assert doc["notes"] and "kx gpu --measure" in doc["notes"][0]  # no GPU here: no measured ceilings
    out = tmp_path / "m.csv"
    p = kx(
        "autotune",
        str(KERNELS / "matmul_autotune.py"),
        "--target",
        "cuda:90",
        "--csv",
        str(out),
        "--json",
        cache=True,
    )
    rows = json.loads(p.stdout)
    assert len(rows) == 4 and all(r["registers"] and r["blocks_per_sm"] for r in rows)
    assert (
        out.read_text()
        .splitlines()[0]
        .startswith("kernel,config,registers/thread,spills (B),shared (B),CTAs/SM")
    )
    assert all(r["predicted_us"] == max(r["modeled_us"], r["floor_us"]) for r in rows)
    p = kx("autotune", "-", "--t3", "4096x4096x4096", "--gpu", "rtx3070", "--json", cache=True)
    doc = json.loads(p.stdout)
    best, rows, pruned = t3.autotune(
        RTX3070, 4096, 4096, 4096, lambda c: t3.perf_model(RTX3070, 4096, 4096, 4096, c), repeats=1
    )
    assert doc["pruned"] == pruned == 46 and doc["best"] == best and doc["measure"] == "model-only"


def test_gpu_command_lists_the_table_with_sources():
    import json as _json

    from kx_core.model.gpu import SPECS

    p = kx("gpu", "--json", cache=True)
    doc = _json.loads(p.stdout)
    assert [g["name"] for g in doc["table"]] == [g.name for g in SPECS.values()]
    assert all(g["source"] for g in doc["table"])
    p = kx("gpu", cache=True)
    assert "H200" in p.stdout and "source:" in p.stdout
