"""Paths shared by the tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "fixtures" / "kernels"
