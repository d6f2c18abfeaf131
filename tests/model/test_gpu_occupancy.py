"""On a machine with a GPU: kx's occupancy of real compiled kernels equals the driver's
own (cuOccupancyMaxActiveBlocksPerMultiprocessor on the loaded cubin), and the local
GPU's properties reach the model. Skipped without a GPU (run on the GPU machine)."""

from __future__ import annotations

import base64
import ctypes

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _driver_blocks(function: int, threads: int, smem: int) -> int:
    cuda = ctypes.CDLL("libcuda.so.1")
    n = ctypes.c_int(0)
    err = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        ctypes.byref(n), ctypes.c_void_p(function), ctypes.c_int(threads), ctypes.c_size_t(smem)
    )
    assert err == 0, f"CUDA error {err}"
    return n.value


def test_occupancy_equals_the_drivers():
    from triton.runtime import driver

    from kx_core.compile import CompileRequest, compile_file
    from kx_core.model.gpu import local_gpu
    from kx_core.model.occupancy import occupancy
    from kx_testing import KERNELS

    gpu = local_gpu()
    props = torch.cuda.get_device_properties(0)
    assert gpu.sm_count == props.multi_processor_count and gpu.name == props.name
    checked = 0
    for name in ("matmul_autotune.py", "vector_add.py", "fused_softmax.py", "matmul.py"):
        result = compile_file(CompileRequest(file=str(KERNELS / name), target="local"))
        for k in result.kernels:
            if k.status != "compiled" or "cubin" not in k.binaries:
                continue
            torch.cuda.synchronize()
            _, function, n_regs, _, _ = driver.active.utils.load_binary(
                k.name, base64.b64decode(k.binaries["cubin"]), k.metadata.shared, 0
            )
            assert n_regs == k.metadata.registers
            threads = k.metadata.num_warps * 32
            ours = occupancy(gpu, threads, k.metadata.registers, k.metadata.shared)
            assert ours.blocks == _driver_blocks(function, threads, k.metadata.shared), (k.display_name, ours)
            checked += 1
    assert checked >= 6
