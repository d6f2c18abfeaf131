"""Ground truth for kx's CUDA generator: what PyTorch's CUDA kernels draw, on a real GPU.

    python3 scripts/record_cuda_rng.py --out fixtures/cuda_rng/<gpu>.json

Each case seeds the default generator (`torch.manual_seed`), makes one or more random
tensors on the GPU and records their values (all of them up to 4096 elements, else the
first and last 64 and the sha256 of the bytes), their dtype and shape, and the CUDA
generator's philox offset after each (`torch.cuda.get_rng_state()`: seed then offset, int64
each). Also whether `torch.randperm(n, device="cuda")` equals the CPU's `torch.randperm(n)`
under the same seed (ATen draws small permutations on the host). Runs on the GPU machine;
tests/compile/test_cuda_rng.py compares kx's draws with the file this writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json

import torch

# (name, code making the tensors, in order; `torch` and `dev` are in scope)
CASES = [
    ("randint_small", ["torch.randint(0, 10, (37,), device=dev)"]),
    ("randint_vocab", ["torch.randint(0, 50257, (8, 1024), device=dev)"]),
    ("randint_int32", ["torch.randint(-5, 300, (1000,), dtype=torch.int32, device=dev)"]),
    ("randint_int16", ["torch.randint(0, 1000, (333,), dtype=torch.int16, device=dev)"]),
    ("randint_wide", ["torch.randint(0, 1 << 30, (999,), device=dev)"]),
    ("randint_wider", ["torch.randint(-(1 << 40), 1 << 41, (77,), device=dev)"]),
    ("randint_scalar", ["torch.randint(3, 24, (), device=dev)"]),
    ("randint_strided_loop", ["torch.randint(0, 1000, (3_000_000,), device=dev)"]),
    ("randint_like", ["torch.randint_like(torch.zeros(5, 6, device=dev), 4, 9)"]),
    ("random_from_to", ["torch.empty(1000, dtype=torch.int64, device=dev).random_(0, 7)"]),
    ("random_to", ["torch.empty(100, dtype=torch.int32, device=dev).random_(100)"]),
    ("rand_f32", ["torch.rand(1000, device=dev)"]),
    ("rand_f16", ["torch.rand(257, dtype=torch.float16, device=dev)"]),
    ("rand_bf16", ["torch.rand(1000, dtype=torch.bfloat16, device=dev)"]),
    ("rand_loop", ["torch.rand(3_000_000, device=dev)"]),
    ("uniform_range", ["torch.empty(500, device=dev).uniform_(-2.0, 3.0)"]),
    ("rand_like_2d", ["torch.rand_like(torch.zeros(31, 17, device=dev))"]),
    ("randperm_small", ["torch.randperm(8191, device=dev)"]),
    ("randperm_tiny", ["torch.randperm(7, device=dev)"]),
    ("randperm_large", ["torch.randperm(40000, device=dev)"]),
    ("randn_f32", ["torch.randn(1000, device=dev)"]),
    (
        "sequence",
        [
            "torch.randint(0, 10, (100,), device=dev)",
            "torch.rand(100, device=dev)",
            "torch.randperm(50, device=dev)",
            "torch.randint(0, 7, (5,), device=dev)",
            "torch.rand(3, 5, device=dev)",
        ],
    ),
]
SEEDS = (0, 1234)
WHOLE = 4096


def _record(t: torch.Tensor) -> dict:
    flat = t.detach().reshape(-1).cpu()
    raw = flat.view(torch.int16) if flat.dtype in (torch.float16, torch.bfloat16) else flat
    row = {
        "dtype": str(t.dtype).removeprefix("torch."),
        "shape": list(t.shape),
        "sha256": hashlib.sha256(raw.numpy().tobytes()).hexdigest(),
    }
    values = raw.tolist()
    if flat.numel() <= WHOLE:
        row["values"] = values
    else:
        row["head"], row["tail"] = values[:64], values[-64:]
    return row


def collect(dev: str) -> dict:
    """Every case of CASES under each seed, drawn on device `dev` (tests run it under kx's
    capture, where "cuda" is the capture GPU)."""
    cases = []
    for seed in SEEDS:
        for name, codes in CASES:
            torch.manual_seed(seed)
            draws = []
            for code in codes:
                t = eval(code, {"torch": torch, "dev": dev})  # noqa: S307 - the table above
                row = _record(t)
                row["code"] = code
                row["offset_after"] = torch.cuda.get_rng_state().view(torch.int64).tolist()[1]
                draws.append(row)
            cases.append({"name": name, "seed": seed, "draws": draws})
    return {"cases": cases}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    dev = "cuda"
    props = torch.cuda.get_device_properties(0)
    out = {
        "gpu": props.name,
        "sm_count": props.multi_processor_count,
        "max_threads_per_sm": props.max_threads_per_multi_processor,
        "torch": torch.__version__,
        **collect(dev),
        "randperm_on_host": {},
    }
    for seed in SEEDS:
        for n in (7, 8191, 29999, 30000, 40000):
            torch.manual_seed(seed)
            gpu = torch.randperm(n, device=dev).cpu()
            torch.manual_seed(seed)
            host = torch.randperm(n)
            out["randperm_on_host"][f"{seed}/{n}"] = bool(torch.equal(gpu, host))
    with open(args.out, "w") as f:
        json.dump(out, f)
    print(f"{len(out['cases'])} cases on {out['gpu']}; randperm on host: {out['randperm_on_host']}")


if __name__ == "__main__":
    main()
