"""The trial history of a kernel: a tree of saved versions, each with its parent, the
strategy tried, correctness, timings, speedup over the baseline, and the best so far.

State lives in `<root>/<kernel>/state.json`; each trial's files in `<root>/<kernel>/tN/`.
Every write of the state goes to a temporary file then `os.replace`, so a process killed
mid-write leaves the previous state whole; a trial's files are copied into a staging
directory and renamed into place, so a failed copy leaves no partial trial. Loaded state
is validated (ids `t<number>`, each trial's dir its own id, numbers where numbers
belong, a best trial that exists) and a corrupt file is refused with the reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any


def trials_root() -> str:
    """Where trial trees live: $KX_TRIALS_DIR, else ~/.local/share/kx/trials."""
    return os.environ.get("KX_TRIALS_DIR") or os.path.join(
        os.path.expanduser("~"), ".local", "share", "kx", "trials"
    )


class TrialError(RuntimeError):
    """A refused operation or a corrupt store; the message says which."""


class TrialStore:
    def __init__(self, root: str | os.PathLike, kernel: str) -> None:
        if (
            kernel in ("", ".", "..")
            or "/" in kernel
            or (os.altsep and os.altsep in kernel)
            or os.sep in kernel
        ):
            raise TrialError(f"kernel name {kernel!r} must be one directory name")
        self.root = Path(root)
        self.kernel = kernel
        self.dir = self.root / kernel
        self.state_path = self.dir / "state.json"

    # ------------------------------------------------------------ state

    def init(self, baseline: str) -> dict:
        if self.state_path.exists():
            return self.load()
        self.dir.mkdir(parents=True, exist_ok=True)
        state = {
            "kernel_name": self.kernel,
            "baseline_file": baseline,
            "trials": {},
            "best_trial": None,
            "next_id": 0,
            "baseline_us": None,
        }
        self._write(state)
        return state

    def load(self) -> dict:
        if not self.state_path.exists():
            raise TrialError(f"no trial tree for {self.kernel!r}: init it first")
        try:
            state = json.loads(self.state_path.read_text())
        except ValueError as e:
            raise TrialError(f"corrupt trial state for {self.kernel!r}: {e}") from e
        validate(state, self.kernel)
        return state

    def _write(self, state: dict) -> None:
        validate(state, self.kernel)
        fd, tmp = tempfile.mkstemp(prefix=".state-", suffix=".json", dir=self.dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(state, f, indent=2)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.state_path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    # ------------------------------------------------------------ trials

    def save(self, source: str | os.PathLike, parent: str | None = None, strategy: str = "") -> str:
        """Copy a kernel file (or folder) in as a new trial; returns its id."""
        src = Path(source)
        if not src.exists():
            raise TrialError(f"trial source {src} not found")
        store = self.root.resolve()
        real = src.resolve()
        if real == store or store in real.parents or real in store.parents:
            raise TrialError(f"trial source {src} overlaps the trial store")
        state = self.load()
        if parent is not None and parent not in state["trials"]:
            raise TrialError(f"parent trial {parent!r} not found; known: {sorted(state['trials'])}")
        tid = f"t{state['next_id']}"
        dest = self.dir / tid
        if os.path.lexists(dest):
            raise TrialError(f"{dest} exists but is not in state.json: repair the store first")
        staging = tempfile.mkdtemp(prefix=f".{tid}-", dir=self.dir)
        try:
            staged = Path(staging) / tid
            if src.is_dir():
                shutil.copytree(src, staged, symlinks=True)
            else:
                staged.mkdir()
                shutil.copy2(src, staged)
            os.rename(staged, dest)
        except OSError as e:
            raise TrialError(f"copying {src} into {dest} failed: {e}") from e
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        state["next_id"] += 1
        state["trials"][tid] = {
            "parent": parent,
            "dir": tid,
            "strategy": strategy,
            "correctness": None,
            "speedup": None,
            "baseline_us": None,
            "kernel_us": None,
            "status": "saved",
        }
        self._write(state)
        return tid

    def result(
        self,
        tid: str,
        correctness: str | None = None,
        baseline_us: float | None = None,
        kernel_us: float | None = None,
        speedup: float | None = None,
    ) -> dict:
        """Record a trial's outcome; speedup defaults to baseline_us / kernel_us."""
        state = self.load()
        if tid not in state["trials"]:
            raise TrialError(f"trial {tid!r} not found; known: {sorted(state['trials'])}")
        if correctness not in (None, "pass", "fail"):
            raise TrialError(f"correctness must be pass or fail, not {correctness!r}")
        t = state["trials"][tid]
        for key, value in (
            ("correctness", correctness),
            ("baseline_us", baseline_us),
            ("kernel_us", kernel_us),
        ):
            if value is not None:
                t[key] = value
        if speedup is None and t["baseline_us"] and t["kernel_us"]:
            speedup = t["baseline_us"] / t["kernel_us"]
        if speedup is not None:
            t["speedup"] = speedup
        if baseline_us is not None and state["baseline_us"] is None:
            state["baseline_us"] = [baseline_us]  # per kernel: later trials reuse it
        if t["correctness"] == "fail":
            t["status"] = "failed"
        elif t["correctness"] == "pass" and t["speedup"] is not None:
            t["status"] = "completed"
        else:
            t["status"] = "partial"
        passing = [
            (v["speedup"], k)
            for k, v in state["trials"].items()
            if v["correctness"] == "pass" and v["speedup"] is not None
        ]
        state["best_trial"] = max(passing, key=lambda p: p[0])[1] if passing else None
        self._write(state)
        return t

    def best(self) -> tuple[str, dict] | None:
        state = self.load()
        b = state["best_trial"]
        return (b, state["trials"][b]) if b else None

    def baseline_us(self) -> float | None:
        values = self.load()["baseline_us"]
        return values[0] if values else None

    def tree(self) -> list[tuple[int, str, dict]]:
        """(depth, id, trial) in tree order: each trial after its parent, ids in order."""
        state = self.load()
        trials = state["trials"]
        children: dict[Any, list[str]] = {}
        for tid, t in trials.items():
            children.setdefault(t["parent"], []).append(tid)
        out: list[tuple[int, str, dict]] = []

        def walk(parent, depth):
            for tid in sorted(children.get(parent, []), key=lambda s: int(s[1:])):
                out.append((depth, tid, trials[tid]))
                walk(tid, depth + 1)

        walk(None, 0)
        return out

    def finalize(self, output: str | os.PathLike) -> Path:
        """Copy the best trial's files to `output`."""
        found = self.best()
        if found is None:
            raise TrialError("no passing trial with a speedup yet")
        dest = Path(output)
        shutil.copytree(self.dir / found[0], dest, dirs_exist_ok=True)
        return dest


def save_measured(
    store: TrialStore,
    source: str | os.PathLike,
    strategy: str = "",
    correctness: str | None = None,
    kernel_us: float | None = None,
    baseline_us: float | None = None,
    parent: str | None = None,
) -> str:
    """Save a measured version as a trial under `parent` (default: the latest trial) with
    its outcome. The speed-up is over `baseline_us` when the run measured a baseline (a
    C++ kernel against PyTorch), else over the tree's first trial (a Triton file's own
    first version)."""
    tree = store.tree()
    parent = parent or (tree[-1][1] if tree else None)
    tid = store.save(source, parent=parent, strategy=strategy)
    baseline = baseline_us or store.baseline_us() or (kernel_us if not tree else None)
    if correctness or kernel_us:
        store.result(tid, correctness, baseline_us=baseline, kernel_us=kernel_us)
    return tid


def validate(state: dict, kernel: str) -> None:
    """Raise TrialError when the state is not one kx wrote."""
    for tid, t in state.get("trials", {}).items():
        if not re.fullmatch(r"t\d+", tid):
            raise TrialError(f"corrupt trial state for {kernel!r}: trial id {tid!r} is not t<number>")
        if t.get("dir") != tid:
            raise TrialError(f"corrupt trial state for {kernel!r}: trial {tid!r} has dir {t.get('dir')!r}")
        for key in ("speedup", "baseline_us", "kernel_us"):
            v = t.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise TrialError(f"corrupt trial state for {kernel!r}: trial {tid!r} {key} is not a number")
        if t.get("parent") is not None and t["parent"] not in state["trials"]:
            raise TrialError(f"corrupt trial state for {kernel!r}: trial {tid!r} has an unknown parent")
    base = state.get("baseline_us")
    if base is not None and (
        not isinstance(base, list) or not all(isinstance(v, (int, float)) for v in base)
    ):
        raise TrialError(f"corrupt trial state for {kernel!r}: baseline_us is not a list of numbers")
    best = state.get("best_trial")
    if best is not None and best not in state.get("trials", {}):
        raise TrialError(f"corrupt trial state for {kernel!r}: best_trial {best!r} is not a known trial")
