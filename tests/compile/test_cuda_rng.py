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
# what kx does not draw as the GPU does (their offsets it does follow): randperm's sort of
# random keys, and randn's Box-Muller (the GPU's logf and sincosf round otherwise)
NOT_MODELLED = ("torch.randperm(", "torch.randn(")


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
    """The table of scripts/record_cuda_rng.py run under kx's capture: every integer and
    uniform draw has the H100's bytes (int16 to int64, 32- and 64-bit draws, fp32, fp16,
    bf16, `uniform_(-2, 3)`, 3M elements over several grid-stride passes, two seeds), and
    the philox offset after every draw is the H100's, randperm's and randn's too."""
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
    assert compared == 2 * 21  # (17 cases of one draw, 4 of the sequence)


def test_a_file_steered_by_gpu_random_numbers_reads_the_real_runs():
    """Lengths from `torch.randint` on the GPU, a keep-mask from `torch.rand`, a 64-bit
    `randint` and the offset after a randperm: what the file prints from them is what the
    H100 printed; what follows randperm's order is a placeholder, said at its line."""
    path = HOST_READS / "gpu_random_draws.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    ground = HOST_READS / "ground" / "gpu_random_draws.json"
    assert_as_real_run(r, ground)
    printed = json.loads(ground.read_text())["output_tail"].splitlines()
    for line in printed[1:4]:  # rand, wide, offset
        assert line in r.output.splitlines(), (line, r.output)
    said = {d.line for d in r.diagnostics if d.kind == "placeholder"}
    text = path.read_text().splitlines()
    assert {i + 1 for i, t in enumerate(text) if t.startswith("total = int(")} <= said
    assert r.exit_status == 5
