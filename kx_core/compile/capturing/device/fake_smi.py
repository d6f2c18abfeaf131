"""nvidia-smi as the capture device answers it. Some libraries find their GPU vendor by
running `nvidia-smi` (FlagGems does) or read the GPU from its output; in a capture the
worker finds this script first on its PATH, written into the job's folder."""

from __future__ import annotations

import json
import os

from kx_core.model.boards import DeviceReport

_SCRIPT = r"""
import json, sys
GPU = json.loads(%r)
FIELDS = {
    "name": GPU["name"], "gpu_name": GPU["name"], "index": "0", "count": "1",
    "compute_cap": f"{GPU['major']}.{GPU['minor']}", "driver_version": "580.00",
    "memory.total": f"{GPU['mib']} MiB", "memory.free": f"{GPU['mib']} MiB", "memory.used": "0 MiB",
    "uuid": "GPU-00000000-0000-0000-0000-000000000000", "pci.bus_id": "00000000:00:00.0",
    "clocks.sm": f"{GPU['mhz']} MHz", "clocks.max.sm": f"{GPU['mhz']} MHz", "utilization.gpu": "0 %%",
    "temperature.gpu": "30", "power.draw": "70.00 W",
}
args = sys.argv[1:]
query = next((a.split("=", 1)[1] for a in args if a.startswith("--query-gpu=")), None)
fmt = next((a.split("=", 1)[1] for a in args if a.startswith("--format=")), "")
if query is None:
    print(f"| NVIDIA-SMI 580.00   Driver Version: 580.00   (kx capture device) |")
    print(f"|   0  {GPU['name']}   {GPU['mib']}MiB |")
    sys.exit(0)
names = [q.strip() for q in query.split(",") if q.strip()]
unknown = [n for n in names if n not in FIELDS]
if unknown:
    print(f'Field "{unknown[0]}" is not a valid field to query.', file=sys.stderr)
    sys.exit(2)
values = [FIELDS[n] for n in names]
if "nounits" in fmt:  # '143771 MiB' -> '143771'; names keep their spaces
    values = [v.rsplit(" ", 1)[0] if v.split(" ")[-1] in ("MiB", "MHz", "%%", "W") else v for v in values]
if "noheader" not in fmt:
    print(", ".join(names))
print(", ".join(values))
"""


def write_fake_smi(folder: str, report: DeviceReport, python: str) -> str:
    """Write `nvidia-smi` into `folder` (created), run by `python`; returns the folder."""
    os.makedirs(folder, exist_ok=True)
    gpu = {
        "name": report.name,
        "major": report.major,
        "minor": report.minor,
        "mib": report.gpu.memory_bytes // (1 << 20),
        "mhz": report.gpu.sm_clock_khz // 1000,
    }
    path = os.path.join(folder, "nvidia-smi")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"#!{python}\n" + _SCRIPT % json.dumps(gpu))
    os.chmod(path, 0o755)
    return folder
