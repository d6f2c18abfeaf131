"""Layouts: who owns which element, coalescing, conversion cost. No Qt."""
