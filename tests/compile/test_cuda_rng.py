"""kx's CUDA generator against the H100's (issue 50, item 1: GPU random numbers).

PyTorch's CUDA kernels draw integers (`randint`, `random_`) and uniform floats (`rand`,
`uniform_`) with curand's Philox4x32-10 per thread of ATen's grid (cuda_philox,
gpu_draws); kx draws them the same way, so reads of them are a real run's. The oracle is
fixtures/cuda_rng/h100.json, recorded on the H100 by scripts/record_cuda_rng.py: every
case's values (sha256 of their bytes) and the philox offset after each draw."""

from __future__ import annotations

import json

import numpy as np

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.capturing.device import cuda_philox
from kx_testing import ROOT, assert_as_real_run

REAL = ROOT / "fixtures" / "cuda_rng" / "h100.json"
HOST_READS = ROOT / "fixtures" / "kernels" / "host_reads"
# what kx does not draw as the GPU does (its offset it does follow): randn's Box-Muller (the
# GPU's logf and sincosf round otherwise)
NOT_MODELLED = ("torch.randn(",)


def test_philox_is_random123s_known_answers():
    """Philox4x32-10's known-answer vectors (Random123's kat_vectors), which curand's
    curand_Philox4x32_10 computes."""
    ones = np.array([0xFFFFFFFF], dtype=np.uint32)
    zero = np.zeros(1, dtype=np.uint32)
    assert [int(w[0]) for w in cuda_philox.philox(zero, zero, zero, zero, 0)] == [
        0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8,
    ]  # fmt: skip
    assert [int(w[0]) for w in cuda_philox.philox(ones, ones, ones, ones, 2**64 - 1)] == [
        0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD,
    ]  # fmt: skip


def test_the_capture_gpu_draws_what_the_h100_drew(tmp_path):
    """The table of scripts/record_cuda_rng.py run under kx's capture: every integer,
    uniform and permutation draw has the H100's bytes (int16 to int64, 32- and 64-bit
    draws, fp32, fp16, bf16, `uniform_(-2, 3)`, 3M elements over several grid-stride passes,
    randperm of 7 to 40000 with int32 and int64 keys, two seeds), and the philox offset
    after every draw is the H100's, randn's too."""
    driver = tmp_path / "draws.py"
    driver.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "from record_cuda_rng import collect\n"
        "for case in collect('cuda')['cases']:\n"
        "    for i, d in enumerate(case['draws']):\n"
        "        print('KX-RNG', case['seed'], case['name'], i, d['sha256'], d['offset_after'])\n"
    )
    r = compile_file(CompileRequest(str(driver), target="cuda:90", timeout_s=300), use_cache=False)
    got = {
        tuple(line.split()[1:4]): line.split()[4:]
        for line in r.output.splitlines()
        if line.startswith("KX-RNG ")
    }
    real = json.loads(REAL.read_text())
    compared = 0
    for case in real["cases"]:
        for i, draw in enumerate(case["draws"]):
            sha, offset = got[(str(case["seed"]), case["name"], str(i))]
            assert int(offset) == draw["offset_after"], (case["name"], draw["code"])
            if not draw["code"].startswith(NOT_MODELLED):
                assert sha == draw["sha256"], (case["seed"], case["name"], draw["code"])
                compared += 1
    assert compared == 2 * 25  # (20 cases of one draw, 5 of the sequence)


def test_a_file_steered_by_gpu_random_numbers_runs_as_on_the_gpu():
    """Lengths from `torch.randint` on the GPU, kept by a mask from `torch.rand` in the
    order `torch.randperm` draws, sum to the size of a buffer and the block size of a
    kernel: kx compiles the real run's kernel, prints every line the H100 printed, and
    guesses nothing (exit 0)."""
    path = HOST_READS / "gpu_random_draws.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    ground = HOST_READS / "ground" / "gpu_random_draws.json"
    assert_as_real_run(r, ground)
    for line in json.loads(ground.read_text())["output_tail"].splitlines():
        assert line in r.output.splitlines(), (line, r.output)
    assert not [d for d in r.diagnostics if d.kind == "placeholder"], [str(d) for d in r.diagnostics]
    assert r.exit_status == 0


def test_a_generator_the_file_makes_on_the_gpu_draws_as_the_gpus(tmp_path):
    """`torch.Generator(device="cuda")` stopped the file ("CUDA driver version is
    insufficient": PyTorch's constructor asks the driver). It is a generator of the
    capture GPU: seeded 1234, its draws are the H100's under `torch.manual_seed(1234)` (the
    same kernels, seed and offset), and torch.Generator is still every generator's class."""
    driver = tmp_path / "own_generator.py"
    driver.write_text(
        "import hashlib, torch\n"
        "g = torch.Generator(device='cuda')\n"
        "assert isinstance(g, torch.Generator) and isinstance(torch.default_generator, torch.Generator)\n"
        "g.manual_seed(1234)\n"
        "a = torch.randint(0, 10, (37,), device='cuda', generator=g)\n"
        "print('sha', hashlib.sha256(a.cpu().numpy().tobytes()).hexdigest(), g.device, g.get_offset())\n"
        "cpu = torch.Generator().manual_seed(3)\n"
        "print('cpu', torch.randint(0, 100, (4,), generator=cpu).tolist())\n"
    )
    r = compile_file(CompileRequest(str(driver), target="cuda:90"), use_cache=False)
    real = json.loads(REAL.read_text())
    (case,) = [c for c in real["cases"] if c["name"] == "randint_small" and c["seed"] == 1234]
    assert f"sha {case['draws'][0]['sha256']} cuda:0 4" in r.output, r.output
    import torch

    assert (
        f"cpu {torch.randint(0, 100, (4,), generator=torch.Generator().manual_seed(3)).tolist()}" in r.output
    )
    assert r.exit_status == 0 and not [d for d in r.diagnostics if d.kind != "no-launch"], r.diagnostics
