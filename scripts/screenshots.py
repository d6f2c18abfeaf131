"""The README's pictures: one screenshot of each workspace, taken by the app itself
(`python -m kx_gui FILE --workspace NAME --screenshot OUT.png`) with fresh settings, at
the window's default size (1280 wide).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--out resources]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "kx_core" / "data" / "examples"
# workspace -> (example, extra view options): what each picture shows
SHOTS = {
    "explore": ("matmul.py", ["--stage", "sass", "--line", "40"]),  # tl.dot -> its HGMMA
    "layout": ("matmul.py", ["--stage", "ttgir", "--layout", "#mma", "--layout-shape", "64x64"]),
    "performance": ("matmul_autotune.py", []),
    "labs": ("matmul.py", []),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "resources"))
    args = ap.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)  # a new folder: made, not "cannot write"
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    for name, (example, extra) in SHOTS.items():
        with tempfile.TemporaryDirectory() as settings:
            env |= {"KX_SETTINGS_DIR": settings, "KX_STATE_DIR": settings}
            out = Path(args.out) / f"workspace_{name}.png"
            cmd = [sys.executable, "-m", "kx_gui", str(EXAMPLES / example), "--target", "cuda:90"]
            cmd += ["--workspace", name, *extra, "--screenshot", str(out)]
            p = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
            print(f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: exit {p.returncode}")
            if p.returncode != 0:
                print(p.stderr[-2000:], file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
