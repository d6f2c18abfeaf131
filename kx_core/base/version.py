"""kx's version: one place (pyproject.toml says the same; the result cache keys on it)."""

__version__ = "0.1.0"
