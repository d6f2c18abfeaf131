"""A TORCH_COMPILE_DEBUG folder: what Inductor wrote of each graph it compiled.

    torch_compile_debug/                     the root (TORCH_COMPILE_DEBUG_DIR)
      run_2026_12_03_15_02_29_107592-pid_716/  one process's run
        torchdynamo/debug.log
        torchinductor/
          model__0_inference_0.0/            one graph: output_code.py (its Triton kernels
            output_code.py                   as source strings), fx_graph_runnable.py,
            fx_graph_runnable.py             ir_pre_fusion.txt, ir_post_fusion.txt, ...

Any of these folders opens (and the TORCH_COMPILE_DEBUG_DIR above the root): kx finds
the graphs' output_code.py below it along that layout, nothing else. The folder holds no IR and names no Triton version;
fx_graph_runnable.py's comments name the torch that wrote it. Each graph's kernels are
kx's compile of its output_code.py (kx_core.recorded.inductor_module), labelled so.
"""

from __future__ import annotations

import glob
import os
import re

from kx_core.base.outside_files import RecordFiles, RefusedFile, version_word
from kx_core.recorded.inductor_module import RecordedRun, list_module, recompile_module
from kx_core.records.results import CompileResult, Diagnostic

OUTPUT_CODE = "output_code.py"
# where the graphs' modules are below each folder of the layout, deepest first
_LAYOUTS = tuple(
    os.path.join(*parts, OUTPUT_CODE)
    for parts in (
        ("torch_compile_debug", "run_*", "torchinductor", "*"),
        ("run_*", "torchinductor", "*"),
        ("torchinductor", "*"),
        ("*",),
        (),
    )
)
MAX_MODULE_BYTES = 64 << 20  # an output module larger than this is reported, not read

# Example: # torch version: 2.11.0+cu130
_TORCH_VERSION_RE = re.compile(r"^# torch version: (\S+)$", re.MULTILINE)


def output_codes(path: str) -> list[str]:
    """The output_code.py files of the graphs at or below `path` (sorted), or []: `path`
    is TORCH_COMPILE_DEBUG_DIR, its torch_compile_debug, a run_*, its torchinductor or
    one graph's folder (only that layout is searched: a large folder costs nothing)."""
    found: set[str] = set()
    files = RecordFiles(path)
    for layout in _LAYOUTS:
        # a module linked from outside the folder is not the record's: passed over
        found.update(p for p in glob.glob(os.path.join(glob.escape(path), layout)) if files.is_file(p))
    return sorted(found)


def torch_version(graph_folder: str, files: RecordFiles | None = None) -> str | None:
    """The torch that wrote a graph's folder, as its fx_graph_runnable.py names it."""
    files = files or RecordFiles(graph_folder)
    head = files.head(os.path.join(graph_folder, "fx_graph_runnable.py"), 1 << 16)
    m = _TORCH_VERSION_RE.search(head.decode("utf-8", "replace"))
    return version_word(m.group(1)) if m else None


def read_debug_folder(path: str, trusted: bool = False) -> tuple[list[CompileResult], list, list[Diagnostic]]:
    """Every graph of the folder recompiled: (the compiles, their kernels labelled
    recompiled, diagnostics located at each output_code.py). Not `trusted`: nothing runs,
    each module's kernels are listed from its text (inductor_module.list_module)."""
    results, kernels, diagnostics = [], [], []
    files = RecordFiles(path)
    for file in output_codes(path):
        graph = os.path.dirname(file)
        try:
            text = files.read_text(file, MAX_MODULE_BYTES)
        except RefusedFile as e:
            diagnostics.append(Diagnostic("refused", e.why, file))
            continue
        except UnicodeDecodeError as e:
            diagnostics.append(Diagnostic("record", f"cannot be read ({e})", file))
            continue
        run = RecordedRun(
            origin=f"inductor-debug {os.path.basename(graph)}", torch=torch_version(graph, files)
        )
        if not trusted:  # running the module is running the record's code
            found, problems = list_module(file, text, run)
            kernels += found
            diagnostics += problems
            continue
        result, found, problems = recompile_module(file, text, run)
        if result is not None:
            results.append(result)
        kernels += found
        diagnostics += problems
    return results, kernels, diagnostics
