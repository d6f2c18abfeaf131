"""Widgets shared by several panes."""
