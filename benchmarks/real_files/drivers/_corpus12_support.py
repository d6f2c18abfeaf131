"""Import helpers and stand-ins for fresh corpus 12's drivers (kx's code, no upstream code).

The import helpers are corpus 7's (re-exported through `_corpus9_support`: one copy); the
stand-ins here are this corpus's own. Each stand-in is used whether or not the real package is
installed, so a driver runs the same on any machine: no download, no hub, no installed-version
drift. Upstream sources are found on sys.path (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

from _corpus9_support import (
    bare_package,
    find_on_path,
    passthrough_module,
    pick,
    quiet_warnings,
    rel_err,
    small,
    stub_module,
    unavailable,
)


def import_trident():
    """kakaobrain/trident 1.1.0 (written against triton 2.1) as its users import it, `import
    trident`, with two stand-ins:

    * `nvtx` (NVIDIA's range-marking package, imported by trident/util/util.py; trident only calls
      it when trident.config.use_trace is set, off by default): a module whose push_range /
      pop_range do nothing.
    * trident.util.autotune calls `triton.autotune(configs, key, prune_configs_by, reset_to_zero,
      warmup, rep)` positionally, the triton 2.1 order. Triton 3 inserted restore_value, pre_hook
      and post_hook before warmup, so the positional 25 and 100 would land in restore_value and
      pre_hook and the decoration raises at import. While trident imports, `triton.autotune` takes
      the two trailing positional arguments as warmup= / rep= (their 2.1 meaning); every config,
      key, prune and reset argument goes through unchanged, and triton.autotune is restored after
      the import."""
    import triton

    stub_module("nvtx", push_range=lambda *a, **k: None, pop_range=lambda *a, **k: None)
    real = triton.autotune

    def autotune_21(configs, key, prune_configs_by=None, reset_to_zero=None, warmup=None, rep=None, **kwargs):
        if warmup is not None:
            kwargs.setdefault("warmup", warmup)
        if rep is not None:
            kwargs.setdefault("rep", rep)
        return real(configs, key, prune_configs_by=prune_configs_by, reset_to_zero=reset_to_zero, **kwargs)

    triton.autotune = autotune_21
    try:
        import trident
    finally:
        triton.autotune = real
    return trident


def install_loguru_standin() -> None:
    """AlibabaPAI/FLASHNN's triton_utils.py logs kernel compiles through loguru's `logger` (not on
    the run machines): a stand-in logger whose methods discard the message."""
    import types

    quiet = types.SimpleNamespace(
        **{m: (lambda *a, **k: None) for m in ("info", "debug", "warning", "error")}
    )
    stub_module("loguru", logger=quiet)


def install_msgspec_standin() -> None:
    """FasterDecoding/TEAL's kernels/sparse_gemv.py imports compile_wrapper.BaseKernel (a
    msgspec.Struct subclass wrapping kernels as torch.library ops) at its end; the drivers call the
    kernels' own Python wrappers (splitk_sparse_gemv, qkv_gemv) and never build a BaseKernel. A
    stand-in `msgspec.Struct`: a plain base class that accepts the class keywords."""

    class Struct:
        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__()

    stub_module("msgspec", Struct=Struct)


__all__ = [
    "bare_package",
    "find_on_path",
    "import_trident",
    "install_loguru_standin",
    "install_msgspec_standin",
    "passthrough_module",
    "pick",
    "quiet_warnings",
    "rel_err",
    "small",
    "stub_module",
    "unavailable",
]
