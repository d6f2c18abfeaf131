"""The status line of a build shown: how many kernels for which target by which compiler,
in how long, and what failed or stopped first where something did; then the window says
the result is shown (`MainWindow.result_shown`)."""

from __future__ import annotations

from kx_core.base.words import counted
from kx_core.compile import CompileResult
from kx_core.ir.display_filters import DisplayFilters, hidden_by_library_filter
from kx_core.records.backends import backend_of


def install(window) -> BuildStatus:
    return BuildStatus(window)


def summary_of(result: CompileResult, filters: DisplayFilters) -> str:
    """One line for the status bar: what failed leads, then kernels, target, compiler, time."""
    fatal = [d for d in result.diagnostics if d.fatal]
    # a C++ kernel's result names its compiler where a Triton result names Triton
    tool = backend_of(result.target).tool_label(result.triton_version)
    # a CuTe DSL program's compiler is the DSL's, not the Triton in the same environment
    extras = [k.metadata.extra or {} for k in result.kernels if k.metadata is not None]
    if extras and {e.get("compiler") for e in extras} == {"nvidia-cutlass-dsl"}:
        tool = f"nvidia-cutlass-dsl {extras[0].get('compiler_version', '')}".strip()
    library = sum(hidden_by_library_filter(k, filters) for k in result.kernels)
    if library:  # a C++ file's library functions, hidden
        shown = counted(len(result.kernels) - library, "function")
        summary = f"{shown} of yours for {result.target.spec} ({tool}), {library} library functions hidden"
    else:
        summary = f"{counted(len(result.kernels), 'kernel')} for {result.target.spec} ({tool})"
    flags = next((d for d in result.diagnostics if d.kind == "flags"), None)
    if flags is not None:  # a C++ kernel built with its build.toml's flags, not the tier's
        summary += f", {flags.message.split(':', 1)[0].removeprefix('compiled with ')}"
    summary += f" in {result.wall_time_s:.1f} s" + (", from cache" if result.from_cache else "")
    after = [k for k in result.kernels if k.after_placeholder is not None]
    if after:
        first = after[0].after_placeholder
        summary += f"; {len(after)} captured after a data placeholder (* — {first.what} at line {first.line})"
    if fatal:
        # what failed leads: at 1280 px the end of the line is cut, and "0 kernels in
        # 0.2 s" first read as a success (issue 54: a DSL's extra not installed)
        d = fatal[0]
        at = f" at line {d.line}" if d.line else ""
        what = f"not compiled{at}" if d.kind == "missing-extra" else f"{d.kind}{at}"
        summary = f"{what}: {d.message} — {summary}"
    elif result.stopped_midway:
        d = next(d for d in result.diagnostics if d.kind == "runtime")
        summary += f" — capture incomplete: the file stopped at line {d.line}: {d.message}"
    elif result.incomplete:
        summary += " — capture incomplete: launches kx could not show (see Kernels)"
    return summary


class BuildStatus:
    def __init__(self, window) -> None:
        self.window = window
        window.session.result_settled.connect(self.show)

    def show(self, result: CompileResult) -> None:
        window = self.window
        summary = summary_of(result, window.session.display_filters)
        window.status_label.setText(summary + window.features.examples.status_note())
        window.result_shown.emit(result)
