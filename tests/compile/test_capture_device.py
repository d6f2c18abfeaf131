"""What the capture device answers and where it goes on: each case is a small kernel file
written here in a pattern real files use, and the kernels a real run would launch must be
the kernels kx records."""

from __future__ import annotations

import textwrap

from kx_core.compile import CompileRequest, compile_file

HEADER = """\
import subprocess
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def launch(x, block=256):
    scale[(triton.cdiv(x.numel(), block),)](x, x.numel(), BLOCK=block)
    return x
"""


def run(tmp_path, body: str, **fields):
    f = tmp_path / "case.py"
    f.write_text(HEADER + textwrap.dedent(body))
    return compile_file(CompileRequest(str(f), target="cuda:90", **fields), use_cache=False)


def blocks(result) -> list[int]:
    return [k.launch.constexprs["BLOCK"] for k in result.kernels if k.status == "compiled"]


def test_the_active_torch_device_is_the_gpu(tmp_path):
    r = run(
        tmp_path,
        """
        DEVICE = triton.runtime.driver.active.get_active_torch_device()
        x = torch.empty(4096, device=DEVICE)
        assert x.device == DEVICE and DEVICE.type == "cuda" and x.is_cuda
        getattr(torch, DEVICE.type).synchronize()
        launch(x)
        """,
    )
    assert r.ok and blocks(r) == [256], r.diagnostics


def test_a_device_ordinal_is_the_gpu(tmp_path):
    # `device=torch.cuda.current_device()` (an int) makes a GPU tensor on a real run
    r = run(
        tmp_path,
        """
        x = torch.empty(4096, device=torch.cuda.current_device())
        assert x.is_cuda and x.device == torch.device("cuda", 0)
        launch(x, 512)
        """,
    )
    assert r.ok and blocks(r) == [512], r.diagnostics


def test_a_custom_backward_runs_with_capture_tensors(tmp_path):
    """Inside Function.backward (run by autograd, outside the mode's handler) GPU
    allocations are still capture tensors and data reads are placeholders."""
    r = run(
        tmp_path,
        """
        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return launch(x.clone())

            @staticmethod
            def backward(ctx, g):
                if not torch.equal(g, torch.ones((), device="cuda")):
                    g = g * 1
                out = torch.empty(g.shape, device="cuda")
                return launch(out, block=512)

        x = torch.randn(4096, device="cuda", requires_grad=True)
        y = Double.apply(x)
        (y * y).sum().backward()
        """,
    )
    # `if not torch.equal(...)` branches on a placeholder before the backward's launch: g is
    # 2 * y, and y is what the forward's kernel wrote (the engine's own ops are computed
    # where their inputs are known: `Double.apply(x).sum()`'s gradient, ones, would be)
    assert r.exit_status == 5 and r.launched_after_placeholder.what == "torch.equal", r.diagnostics
    assert blocks(r) == [256, 512]
    assert any(d.kind == "placeholder" and "torch.equal" in d.message for d in r.diagnostics)


def test_gpu_kernels_a_library_registers_serve_capture_tensors(tmp_path):
    """A Python implementation registered for the CUDA dispatch key (FlagGems' way) is
    what a call on a GPU tensor runs, and so on a capture tensor."""
    r = run(
        tmp_path,
        """
        lib = torch.library.Library("aten", "IMPL")

        def my_silu(x):
            return launch(torch.empty_like(x), block=1024)

        lib.impl("silu", my_silu, "CUDA")
        y = torch.nn.functional.silu(torch.randn(8192, device="cuda"))
        """,
    )
    assert r.ok and blocks(r) == [1024], r.diagnostics


def test_nvidia_smi_answers_as_the_capture_gpu(tmp_path):
    r = run(
        tmp_path,
        """
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,compute_cap",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, check=True)
        name, memory, cap = [v.strip() for v in out.stdout.split(",")]
        assert "H200" in name and cap == "9.0" and int(memory) > 140_000, out.stdout
        launch(torch.empty(4096, device="cuda"))
        """,
        gpu="h200",
    )
    assert r.ok and blocks(r) == [256], r.diagnostics


def test_benchmarks_launch_their_kernels(tmp_path):
    r = run(
        tmp_path,
        """
        x = torch.randn(4096, device="cuda")
        ms = triton.testing.do_bench(lambda: launch(x, block=128))
        quantiles = triton.testing.do_bench(lambda: launch(x, block=64), quantiles=[0.5, 0.2, 0.8])
        assert ms > 0 and len(quantiles) == 3

        @triton.testing.perf_report(triton.testing.Benchmark(
            x_names=["size"], x_vals=[1024, 2048], line_arg="provider", line_vals=["triton"],
            line_names=["Triton"], plot_name="scale", args={}))
        def bench(size, provider):
            return triton.testing.do_bench(lambda: launch(torch.empty(size, device="cuda"), block=size // 4))

        bench.run(print_data=True, show_plots=True, save_path=".")
        """,
    )
    assert r.ok, r.diagnostics
    assert sorted(set(blocks(r))) == [64, 128, 256, 512]
    assert not (tmp_path / "scale.png").exists()  # nothing written to the user's folder


def test_autotune_prune_configs_by_and_a_second_key(tmp_path):
    """Configs early_config_prune leaves out are listed as pruned and not compiled, as a
    real autotuner skips them; a second autotune key with the same specialization
    reuses the compiled configs (and the launch stands)."""
    r = run(
        tmp_path,
        """
        def keep_small(configs, named_args, **kwargs):
            return [c for c in configs if c.kwargs["BLOCK"] <= kwargs["LIMIT"]]

        @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (128, 256, 1024)],
                         key=["n"], prune_configs_by={"early_config_prune": keep_small})
        @triton.jit
        def tuned(x_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

        x = torch.empty(8192, device="cuda")
        tuned[(8,)](x, 4096, LIMIT=256)
        tuned[(8,)](x, 8192, LIMIT=256)
        """,
    )
    assert r.exit_status == 0, r.diagnostics
    by = {(k.config.kwargs["BLOCK"], k.status) for k in r.kernels if k.config}
    assert {(128, "compiled"), (256, "compiled"), (1024, "pruned")} <= by
    pruned = [k for k in r.kernels if k.status == "pruned"]
    assert pruned and all(not k.stages and "prune_configs_by" in k.message for k in pruned)


def test_profiler_and_cublas_are_no_ops(tmp_path):
    r = run(
        tmp_path,
        """
        import triton.profiler as proton
        from triton._C.libtriton import nvidia

        blas = nvidia.cublas.CublasLt(torch.empty(1 << 20, dtype=torch.uint8, device="cuda"))
        proton.start("matmul", hook="triton")
        with proton.scope("scaled"):
            launch(torch.empty(4096, device="cuda"))
        blas.matmul(torch.empty(64, 64, device="cuda"), torch.empty(64, 64, device="cuda"), torch.empty(64, 64, device="cuda"))
        proton.finalize()
        """,
    )
    assert r.ok and blocks(r) == [256], r.diagnostics
