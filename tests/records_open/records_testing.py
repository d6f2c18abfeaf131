"""The recorded fixtures (scripts/record_fixtures.py) and copies of them a test may damage."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from kx_testing import ROOT

RECORDS = ROOT / "fixtures" / "records" / "3.8.0" / "cuda90"
CACHE = RECORDS / "cache"
DUMP = RECORDS / "dump"
TRACE = RECORDS / "trace.ndjson"
TRACE_GZIP_MEMBERS = RECORDS / "trace.bin.ndjson"  # tritonparse's compression="gzip"
KERNEL_FILE = ROOT / "fixtures" / "records" / "record_kernels.py"
# recorded on the H200 by scripts/record_gpu_records.py (records.json says what made each)
GPU_RECORDS = ROOT / "fixtures" / "records" / "3.6.0" / "cuda90-gpu"
INDUCTOR_DEBUG = GPU_RECORDS / "inductor_debug"  # TORCH_COMPILE_DEBUG_DIR
TORCH_TRACE_LOG = next((GPU_RECORDS / "torch_trace").glob("dedicated_log_torch_trace_*.log"))
INDUCTOR_TRACE = GPU_RECORDS / "inductor_trace.ndjson"  # tritonparse's trace of the same model
GPU_CACHE, GPU_DUMP = GPU_RECORDS / "cache", GPU_RECORDS / "dump"  # record_fixtures.py --gpu
GPU_TRACE = GPU_RECORDS / "trace.ndjson"  # its tritonparse trace: compilations and launches
PROTON_TIMES = GPU_RECORDS / "proton.hatchet"
PROTON_PC = GPU_RECORDS / "proton_pc.hatchet"
# an older PC-sampling profile whose kernel has file:line frames (scripts/gpu_profile_ground_truth.sh)
PROTON_LINES = ROOT / "fixtures" / "profile" / "proton_vector_add.hatchet.json"
# Example: "	Function softmax_rows:REG:26 STACK:0 SHARED:0 LOCAL:0 ..." (cuobjdump -res-usage)
RES_USAGE_RE = re.compile(r"REG:(\d+)\s+STACK:\d+\s+SHARED:(\d+)")


def copy_of(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


def kernel_dirs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir())
