"""One scratch folder per benchmark run, removed when the run ends.

Imported first by the benchmarks that make folders: every `tempfile.mkdtemp()` after it,
and the TMPDIR of the processes they start (Triton's and Inductor's default caches
included), lands inside it. Benchmarks left hundreds of MB in /tmp per run before.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

ROOT = tempfile.mkdtemp(prefix="kx-bench-run-")
tempfile.tempdir = ROOT
os.environ["TMPDIR"] = ROOT
atexit.register(shutil.rmtree, ROOT, True)
