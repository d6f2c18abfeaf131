"""On the GPU machine: the model against the real GPU.

    PYTHONPATH=. python3 benchmarks/gpu_model_check.py [--sizes 2048,4096,8192]

1. Measured ceilings (copy bandwidth, bf16 and fp32 matmul) against the datasheet.
2. For kx_core/data/examples/matmul_autotune.py at each size: every config compiled by kx
   for the local GPU, modelled (predicted time, bound, occupancy), then timed with
   triton.testing.do_bench; prints predicted vs measured per config, percent of the
   roof reached, and Spearman's rho between the two rankings.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _time_config(kernel, cfg, tensors, size: int) -> float:
    """Median ms of one config of the matmul at size^3, through do_bench."""
    import triton
    from triton.testing import do_bench

    a, b, c = tensors
    grid = (triton.cdiv(size, cfg.kwargs["BLOCK_M"]) * triton.cdiv(size, cfg.kwargs["BLOCK_N"]),)

    def run():
        kernel[grid](a, b, c, size, size, size, size, 1, size, 1, size, 1,
                     num_warps=cfg.num_warps, num_stages=cfg.num_stages, **cfg.kwargs)  # fmt: skip

    return do_bench(run, warmup=25, rep=200)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2048,4096,8192")
    args = ap.parse_args()
    import torch

    from kx_core.compile import CompileRequest, compile_file
    from kx_core.model.gpu import local_gpu, measure_ceilings
    from kx_core.model.kernel import model_kernel, spearman

    ceilings = measure_ceilings(force=True)
    gpu = local_gpu()
    print(
        f"{gpu.name}: {gpu.sm_count} SMs, smem/SM {gpu.smem_per_sm}, smem/block {gpu.smem_per_block}, L2 {gpu.l2_bytes}"
    )
    print(
        f"  DRAM copy {ceilings['bw'] / 1e12:.2f} TB/s = {100 * ceilings['bw'] / gpu.peak_bw:.0f}% of datasheet {gpu.peak_bw / 1e12:.2f}"
    )
    for p in ("bf16", "fp32"):
        print(
            f"  {p} matmul {ceilings[p] / 1e12:.1f} TFLOP/s = {100 * ceilings[p] / gpu.peak(p):.0f}% of datasheet {gpu.peak(p) / 1e12:.1f}"
        )
    source = (ROOT / "kx_core" / "data" / "examples" / "matmul_autotune.py").read_text()
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"matmul_autotune_{size}.py"
            path.write_text(source.replace("(512, 512)", f"({size}, {size})"))
            result = compile_file(CompileRequest(file=str(path), target="local"))
            spec = importlib.util.spec_from_file_location("mm", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        a = torch.randn((size, size), device="cuda", dtype=torch.float16)
        b = torch.randn((size, size), device="cuda", dtype=torch.float16)
        c = torch.empty((size, size), device="cuda", dtype=torch.float16)
        preds, meas, best = [], [], []
        print(f"\n{size}^3 fp16 matmul, {len(result.kernels)} configs")
        for k in result.kernels:
            cfg = k.config
            ms = _time_config(mod.matmul_kernel.fn, cfg, (a, b, c), size)
            m = model_kernel(k, gpu, measured_s=ms * 1e-3)
            preds.append(m.predicted_s)
            best.append(m.predicted_min_s)
            meas.append(ms * 1e-3)
            occ = m.occupancy
            print(
                f"  {k.config.label:40} regs {k.metadata.registers:3} smem {k.metadata.shared:6} "
                f"occ {occ.blocks}/{occ.limiter:7} waves {m.waves} tail {m.tail_fill:.2f}  predicted {m.predicted_s * 1e6:8.1f} us "
                f"best case {m.predicted_min_s * 1e6:8.1f} us measured {ms * 1e3:8.1f} us  (no-L2 bound: {m.roofline.bound}, "
                f"{m.roofline_unique.percent_of_roof:.0f}% of the compulsory-bytes roof, "
                f"{m.work.flops / (ms * 1e-3) / 1e12:.0f} TFLOP/s)"
            )
        r = spearman(preds, meas)
        r_min = spearman(best, meas)
        print(f"  Spearman rho, measured vs predicted (no L2 reuse): {r if r is None else round(r, 2)}; "
              f"vs best case (perfect L2): {r_min if r_min is None else round(r_min, 2)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
