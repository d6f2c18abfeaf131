"""The app's background jobs (kx_gui/jobs.py) bring results to the window's thread through
one relay that lives as long as the app: a pane deleted while its job computes is never
touched by the result (a worker emitting on the pane's own, deleted Jobs crashed the test
process in test_kernelbench_pane.py)."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QObject

from kx_gui import jobs as jobs_module
from kx_gui.jobs import Jobs


def test_a_result_for_a_deleted_pane_is_dropped_and_others_still_arrive(qtbot, monkeypatch):
    delivered = []
    deliver = jobs_module._Relay._deliver

    def counted(self, ref, job, value, error):
        delivered.append(job.key)
        return deliver(self, ref, job, value, error)

    monkeypatch.setattr(jobs_module._Relay, "_deliver", counted)
    monkeypatch.setattr(jobs_module, "_relay", None)  # a relay whose slot is the counted one
    pane = QObject()
    gone = Jobs(pane)
    started, release, applied = threading.Event(), threading.Event(), []

    def compute():
        started.set()
        release.wait(10)
        return 42

    job = gone.submit("gone", compute, applied.append)
    assert started.wait(10)
    shiboken6.delete(pane)  # the pane and its Jobs' C++ objects go while the job computes
    assert not shiboken6.isValid(gone)
    release.set()
    qtbot.waitUntil(lambda: "gone" in delivered, timeout=10_000)
    assert applied == [] and not job.done
    alive = Jobs()
    later = alive.submit("alive", lambda: 7, applied.append)
    qtbot.waitUntil(lambda: later.done, timeout=10_000)
    assert applied == [7] and later.ok
