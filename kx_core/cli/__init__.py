"""The `kx` command line, one module per group of verbs: `commands` (the parser, the app and
worker verbs, compiling and reading a file, layouts), `model` (roofline, autotune, gpu),
`bench` (bench, check, kernelbench), `egraph_lit` (egraph, lit, opt); `args` holds the
argument types and the exit statuses every verb shares. `python -m kx_core.cli VERB ...`."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """The command line (kx_core.cli.commands.main), imported only when it runs."""
    from kx_core.cli.commands import main as run

    return run(argv)
