"""Join what scripts/gpu_dsl_ground_truth.sh recorded on the GPU machine into one record:
for each file, the compiles of its real run (scripts/record_real_runs.py: Triton's hash
and the PTX's sha256 of each) and kx's capture of it there (`kx compile --json`), with
each kx kernel marked by whether the real run built the very same compile (its hash).

    python3 scripts/dsl_ground_merge.py OUT FILE... [--gpu NAME --triton V --torch V --helion V]

OUT holds real/<name>.json and kx_<name>.json; the record goes to OUT/dsl.json. The
versions default to this machine's (run on the GPU machine); give them when joining a
run's files elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os

REAL_FIELDS = (
    "name",
    "hash",
    "ptx_sha256",
    "ptx_sha256_portable",
    "ptx_sha256_nodebug",
    "ptx_sha256_code",
    "num_warps",
    "num_stages",
)
# what record_real_runs.py --cubin-figures adds to a Triton compile's
CUBIN_FIELDS = ("registers", "spills", "shared", "cubin_sha256", "sass_sha256_portable", "source")
# what a CuTe DSL program's record has instead (scripts/record_cute_runs.py)
CUTE_FIELDS = ("name", "arch", "ptx_sha256_portable", "registers", "shared", "sass_sha256_portable")


def _installed(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--gpu")
    ap.add_argument("--triton")
    ap.add_argument("--torch")
    ap.add_argument("--helion")
    ap.add_argument("--nvidia-cutlass-dsl")
    args = ap.parse_args()
    gpu = args.gpu
    if gpu is None:
        import torch

        gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    row = {
        "gpu": gpu,
        "triton": args.triton or _installed("triton"),
        "torch": args.torch or _installed("torch"),
        "files": {},
    }
    for package in ("helion", "nvidia-cutlass-dsl"):
        # joined elsewhere (--gpu given), this machine's packages say nothing of that run's
        version = getattr(args, package.replace("-", "_"), None) or (
            None if args.gpu else _installed(package)
        )
        if version:
            row[package] = version
    for f in args.files:
        n = os.path.splitext(os.path.basename(f))[0]
        with open(os.path.join(args.out, "real", f"{n}.json")) as fh:
            real = json.load(fh)
        with open(os.path.join(args.out, f"kx_{n}.json")) as fh:
            kx = json.load(fh)
        # a Triton compile has Triton's hash (and, with --cubin-figures, the cubin's too)
        compiles_ = real.get("compiles", [])
        if any("hash" in c for c in compiles_):
            fields = REAL_FIELDS + tuple(f for f in CUBIN_FIELDS if any(f in c for c in compiles_))
        else:
            fields = CUTE_FIELDS
        compiles = [{k: c.get(k) for k in fields} for c in real.get("compiles", [])]
        built = {c.get("hash") for c in compiles} - {None}
        row["files"][f] = {
            "real": compiles,
            "kx": [
                {
                    "name": k["name"],
                    "hash": k["metadata"] and k["metadata"]["hash"],
                    "registers": k["metadata"] and k["metadata"]["registers"],
                    "shared": k["metadata"] and k["metadata"]["shared"],
                    "same_as_real_run": bool(k["metadata"]) and k["metadata"]["hash"] in built,
                }
                for k in kx["kernels"]
                if k.get("status", "compiled") == "compiled"
            ],
            # what kx said there (a kernel it could not capture is said, not missing)
            "kx_diagnostics": [d["message"] for d in kx.get("diagnostics", []) if d["kind"] != "placeholder"],
        }
    with open(os.path.join(args.out, "dsl.json"), "w") as fh:
        json.dump(row, fh, indent=1)
    print(json.dumps({f: (len(v["real"]), len(v["kx"])) for f, v in row["files"].items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
