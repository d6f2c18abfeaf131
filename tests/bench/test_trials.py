"""The trial tree: parents, results, best, validation, and writes that a kill cannot tear."""

from __future__ import annotations

import json
import os

import pytest

from kx_core.bench.trials import TrialError, TrialStore
from kx_testing import KERNELS


def test_tree_results_and_best(tmp_path):
    store = TrialStore(tmp_path / "trials", "vector_add")
    store.init(str(KERNELS / "vector_add.py"))
    t0 = store.save(KERNELS / "vector_add.py", strategy="baseline copy")
    t1 = store.save(KERNELS / "vector_add.py", parent=t0, strategy="BLOCK 2048")
    t2 = store.save(KERNELS / "vector_add.py", parent=t0, strategy="num_warps 8")
    assert (t0, t1, t2) == ("t0", "t1", "t2")
    assert (tmp_path / "trials" / "vector_add" / "t1" / "vector_add.py").read_text() == (
        KERNELS / "vector_add.py"
    ).read_text()
    store.result(t0, "pass", baseline_us=10.0, kernel_us=10.0)
    store.result(t1, "pass", baseline_us=10.0, kernel_us=8.0)
    assert store.result(t2, "fail")["status"] == "failed"
    assert store.best() == ("t1", store.load()["trials"]["t1"]) and store.best()[1]["speedup"] == 1.25
    assert store.baseline_us() == 10.0
    assert [(d, tid) for d, tid, _ in store.tree()] == [(0, "t0"), (1, "t1"), (1, "t2")]
    out = store.finalize(tmp_path / "final")
    assert (out / "vector_add.py").exists()
    with pytest.raises(TrialError, match="parent trial 't9' not found"):
        store.save(KERNELS / "vector_add.py", parent="t9")
    with pytest.raises(TrialError, match="overlaps the trial store"):
        store.save(tmp_path / "trials" / "vector_add")
    with pytest.raises(TrialError, match="one directory name"):
        TrialStore(tmp_path, "../evil")


def test_corrupt_state_is_refused(tmp_path):
    store = TrialStore(tmp_path, "k")
    store.init("baseline.py")
    store.save(KERNELS / "vector_add.py")
    state = json.loads(store.state_path.read_text())
    state["trials"]["t0"]["speedup"] = "fast"
    store.state_path.write_text(json.dumps(state))
    with pytest.raises(TrialError, match="speedup is not a number"):
        store.load()
    state["trials"]["t0"]["speedup"] = None
    state["best_trial"] = "t7"
    store.state_path.write_text(json.dumps(state))
    with pytest.raises(TrialError, match="best_trial 't7'"):
        store.load()


def test_a_write_killed_midway_keeps_the_old_state(tmp_path, monkeypatch):
    store = TrialStore(tmp_path, "k")
    store.init("baseline.py")
    tid = store.save(KERNELS / "vector_add.py")
    before = store.state_path.read_text()

    def dies(*args, **kwargs):
        raise KeyboardInterrupt  # the process is stopped after the temp file was written

    monkeypatch.setattr(os, "replace", dies)
    with pytest.raises(KeyboardInterrupt):
        store.result(tid, "pass", baseline_us=5.0, kernel_us=4.0)
    monkeypatch.undo()
    assert store.state_path.read_text() == before and store.load()["trials"][tid]["status"] == "saved"
    assert not [p for p in store.dir.iterdir() if p.name.startswith(".state-")]
