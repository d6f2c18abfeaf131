"""`python -m kx_core.cli VERB ...` (the GPU machine, which has no app, runs kx this way)."""

from kx_core.cli.commands import main

if __name__ == "__main__":  # importing the module (a walk over kx_core) runs nothing
    raise SystemExit(main())
