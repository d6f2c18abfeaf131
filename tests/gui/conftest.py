"""GUI fixtures: a main window with private settings, recovery folder and a short timeout."""

from __future__ import annotations

import pytest


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
