"""The pane registry: every pane's declared subscriptions name a real Session signal and
a method of the pane, so the base class can connect them all in one place."""

from __future__ import annotations

import inspect

from PySide6.QtCore import Signal

from kx_gui.pane_registry import PANES
from kx_gui.panes.base import Pane
from kx_gui.session import Session


def test_every_pane_declares_real_signals_and_methods():
    declared = 0
    for spec in PANES:
        cls = spec.load()
        assert issubclass(cls, Pane) and cls.name == spec.name
        for signal, method in spec.listens().items():
            owner, _, name = signal.rpartition(".")  # a feature model's signal: "profiles.changed"
            where = Session.MODELS[owner] if owner else Session
            assert isinstance(inspect.getattr_static(where, name), Signal), (spec.name, signal)
            assert callable(getattr(cls, method, None)), (spec.name, method)
            declared += 1
    assert declared >= 20  # the panes that follow results say so in the table


def test_no_pane_connects_session_signals_by_hand():
    for spec in PANES:
        source = inspect.getsource(spec.load())
        assert "self.listen(session." not in source, spec.name
