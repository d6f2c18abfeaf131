"""Shared test set-up: a private result cache and runtime folder, offscreen Qt, and memoised real compiles.

Every compile here is a real Triton compile of a fixture kernel file; `capture(file,
target)` runs each (file, target, options) once per session and shares the result.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from kx_testing import KERNELS, ROOT, kernel_path  # noqa: F401 - ROOT re-exported for old imports

# Set before anything imports kx: the worker processes inherit these too.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["KX_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-test-cache-")
# the session's own warm servers: never a server of a kx app open on the same machine
os.environ["KX_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="kx-rt-")
# removed when the session ends: a run of the suite left ~300 MB of compiles in /tmp, and
# the disk of a machine that runs it often (CI's) filled up
_SCRATCH = (os.environ["KX_CACHE_DIR"], os.environ["KX_RUNTIME_DIR"])

_RESULTS: dict = {}


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001 - no torch means no GPU tests
        return False


def pytest_unconfigure(config):
    # after the session's fixtures are torn down (the warm worker stopped); each xdist
    # worker made and removes its own folders
    for folder in _SCRATCH:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    from kx_testing import EXTRAS, missing_extra

    for item in items:
        for mark in item.iter_markers("extra"):
            (name,) = mark.args
            if name not in EXTRAS:
                raise pytest.UsageError(f"{item.nodeid}: no extra {name!r} (kx_testing.EXTRAS)")
            if why := missing_extra(name):
                item.add_marker(pytest.mark.skip(reason=why))
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def warm_worker():
    """One warm worker for the test session (in its own runtime folder, so never a kx
    app's), as the app keeps one: a compile forks from it instead of starting Python and
    importing torch and Triton again, which was most of the suite's CPU time. Compiles made
    before it answers run cold, as the app's do; tests of the warm worker itself start and
    stop servers of their own."""
    from kx_core.compile.jobs import warm

    proc = warm.launch(wait_s=0)
    yield proc
    stopped = warm.stop()
    if proc is not None:
        if not stopped:  # still importing torch, not yet answering: a short session
            proc.terminate()  # would otherwise wait the whole 30 s below for it
        try:
            proc.wait(30)
        except Exception:  # noqa: BLE001 - it dies with the session anyway (its lifeline)
            proc.kill()


@pytest.fixture(scope="session")
def capture():
    """capture(name, target='cuda:90', **request_fields) -> CompileResult (memoised)."""
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.artifacts.derived import with_derived

    def run(name: str, target: str = "cuda:90", **fields):
        key = (name, target, tuple(sorted((k, repr(v)) for k, v in fields.items())))
        if key not in _RESULTS:
            request = CompileRequest(str(kernel_path(name)), target=target, **fields)
            _RESULTS[key] = with_derived(compile_file(request, use_cache=False))
        return _RESULTS[key]

    return run


# A main window with private settings, state and trials folders and a short timeout (GUI
# tests; the robustness tests wrap it with the questions they answer).
@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("KX_SETTINGS_DIR", str(tmp_path / "settings"))
    monkeypatch.setenv("KX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("KX_TRIALS_DIR", str(tmp_path / "trials"))
    windows = []

    def make(target: str = "cuda:90", timeout_s: float = 60.0):
        from kx_gui.main_window import MainWindow

        w = MainWindow(target=target, headless=True)
        w.session.timeout_s = timeout_s
        qtbot.addWidget(w)
        w.show()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.ask_save_changes = lambda: "discard"
        w.session.shutdown()
