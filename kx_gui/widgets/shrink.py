"""Widgets in a pane's tool bar that must not set the pane's minimum width: a status label
with a long message, a picker with long kernel names. Without this a dock area grows to
the widest message it ever showed and never gives the room back (issue 18, defect 3)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QWidget


def shrinkable(widget: QWidget, chars: int = 12) -> QWidget:
    """A label may be clipped (its full text stays in the tooltip); a combo box is as
    wide as `chars` characters at least and its items' width at most."""
    if isinstance(widget, QLabel):
        widget.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        widget.setMinimumWidth(0)
    elif isinstance(widget, QComboBox):
        widget.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        widget.setMinimumContentsLength(chars)
    return widget
