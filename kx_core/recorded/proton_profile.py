"""A Proton profile (`proton.finalize()`'s .hatchet: JSON) as kx's own profile result.

    [{"children": [{"children": [...], "frame": {"name": "add_vectors", "type": "function"},
                    "metrics": {"count": 20, "device_id": "0", "device_type": "CUDA", "time (ns)": 17985}},
                   ...],
      "frame": {"name": "ROOT", "type": "function"}, "metrics": {}},
     {"CUDA": {"0": {"arch": "90", "num_sms": 132, ...}}}]

The first element is the call tree: ROOT, the user's scopes, and under them one node per
kernel (its metrics carry device_id and device_type) with its launches (`count`) and GPU
time (`time (ns)`). Under PC sampling (mode="pcsampling") a kernel's metrics also hold
its samples per stall reason, and where CUPTI could map PCs to lines, its children are
`file:line@kernel` frames with their own samples (kx_core.bench.profile.proton_figures
reads those; the kernel's totals are then their sums). A line of Triton's own library (an
inlined tl.max's, in triton/language/standard.py) is a frame of its own, without the
kernel line that called it: the kernel's source file is its hottest file outside that
library, and `library_lines` lists the library's. Proton drops the PC, so a profile's heat is on source lines only; a stage's
lines get their statement's heat through the source map of a build of the same kernel
(kx_core.ir.hot_lines.heat_for), which `join_profile` does.

The second element is the device: its arch and SM count. The file names no Triton version.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from kx_core.base.outside_files import RefusedFile, check_json_depth, read_head, read_regular
from kx_core.bench.profile import PROTON_REASONS, KernelProfile, ProfileResult, proton_figures
from kx_core.ir.hot_lines import HotLines, LineHeat, attribute, heat_for
from kx_core.ir.sourcemap import same_source, source_map_of
from kx_core.records.results import CompiledKernel, CompileResult, Diagnostic

MAX_PROFILE_BYTES = 512 << 20  # a profile larger than this is reported, not read
# A hatchet file's start: its first node's sorted keys, or a list of them.
# Example: [{"children": [{"children": [], "frame": {"name": "add_vectors", "type": "function"},
_HATCHET_START_RE = re.compile(rb'^\s*\[?\s*\{\s*"(children|frame|metrics)"\s*:')
# Example: "/work/fixtures/records/record_kernels.py:18@add_vectors"
_LINE_FRAME_RE = re.compile(r"^(.+):(\d+)@(.+)$")
# A file of Triton's own library, whose functions (tl.max, tl.sum: standard.py) a kernel
# inlines. Example: "/opt/venv/lib/python3.12/site-packages/triton/language/standard.py"
_TRITON_LIBRARY_RE = re.compile(r"(^|[/\\])triton[/\\](language|experimental)[/\\]")


def is_triton_library(file: str) -> bool:
    """Whether a line frame's file is Triton's own library (triton/language/...)."""
    return bool(_TRITON_LIBRARY_RE.search(file))


def library_lines(profile: KernelProfile) -> dict[str, int]:
    """A kernel's samples on lines of Triton's own library ("file:line" -> samples),
    hottest first: an inlined tl.* call's, which Proton keeps without its call site."""
    lines = {
        key: m.get("samples", 0)
        for key, m in profile.by_line.items()
        if is_triton_library(key.rsplit(":", 1)[0]) and m.get("samples", 0)
    }
    return dict(sorted(lines.items(), key=lambda kv: -kv[1]))


def is_hatchet(path: str) -> bool:
    """The file starts as a hatchet tree's JSON does and names a frame early on."""
    head = read_head(path, 1 << 16)  # b'' for a FIFO or a device: never waited on
    return bool(_HATCHET_START_RE.match(head)) and b'"frame"' in head


def read_hatchet(path: str) -> tuple[list, list[Diagnostic]]:
    """The profile's JSON as a list (tree, device info); a file that does not parse gives
    a Diagnostic at the line and column where it stops, and the tree's complete kernel
    nodes before that place (a profile cut short keeps its first kernels)."""
    try:
        text = read_regular(path, MAX_PROFILE_BYTES).decode("utf-8")
        # before any decoding, the salvage's included: a tree nested past the limit is not read
        check_json_depth(text, path)
    except RefusedFile as e:
        return [], [Diagnostic("refused", e.why, path)]
    except UnicodeDecodeError as e:
        return [], [Diagnostic("record", f"cannot be read ({e})", path)]
    try:
        doc = json.loads(text)
    except RecursionError:
        return [], [Diagnostic("refused", "JSON nested deeper than Python's decoder reads", path)]
    except ValueError as e:
        line, column = getattr(e, "lineno", None), getattr(e, "colno", None)
        problem = Diagnostic(
            "record", f"not JSON from here ({getattr(e, 'msg', e)}): a profile cut short?", path, line, column
        )
        return [_salvage(text)], [problem]
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list) or not doc or not isinstance(doc[0], dict) or "frame" not in doc[0]:
        return [], [Diagnostic("record", "JSON, but not a hatchet tree (no frame at its root)", path)]
    return doc, []


def _salvage(text: str) -> dict:
    """The root's complete children of a truncated file: Proton writes the root's keys
    sorted, so `children` comes first and each child is a whole JSON object."""
    root: dict[str, Any] = {"frame": {"name": "ROOT", "type": "function"}, "children": [], "metrics": {}}
    m = re.match(r'\s*\[?\s*\{\s*"children"\s*:\s*\[', text)
    if not m:
        return root
    decoder, at = json.JSONDecoder(), m.end()
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        try:
            child, at = decoder.raw_decode(text, at)
        except ValueError:
            return root
        if isinstance(child, dict):
            root["children"].append(child)


def _kernel_nodes(tree: Any) -> dict[str, list[dict]]:
    """Kernel name -> its nodes (one per scope it ran under), in the tree's order."""
    out: dict[str, list[dict]] = {}

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        frame = node.get("frame") if isinstance(node.get("frame"), dict) else {}
        name = str(frame.get("name", ""))
        metrics = node.get("metrics") if isinstance(node.get("metrics"), dict) else {}
        if "device_type" in metrics and not _LINE_FRAME_RE.match(name):
            out.setdefault(name, []).append(node)
            return  # a kernel's children are its lines
        for child in node.get("children", ()) if isinstance(node.get("children"), list) else ():
            walk(child)

    walk(tree)
    return out


def _number(metrics: dict, key: str) -> float:
    value = metrics.get(key, 0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _device(info: Any) -> str:
    """'CUDA 0 (arch 90, 132 SMs)' from the profile's device element."""
    if not isinstance(info, dict):
        return "unknown (the profile names no device)"
    for kind, devices in info.items():
        for index, d in devices.items() if isinstance(devices, dict) else ():
            if isinstance(d, dict):
                return f"{kind} {index} (arch {d.get('arch', '?')}, {d.get('num_sms', '?')} SMs)"
    return "unknown (the profile names no device)"


def _source_file(files: dict[str, int]) -> str:
    """The kernel's own file: of its line frames' files (file -> samples), the one with
    the most samples outside Triton's library (a softmax's tl.max and tl.sum lines, in
    triton/language/standard.py, can outweigh its own); that library's if it has no other."""
    own = {f: n for f, n in files.items() if not is_triton_library(f)} or files
    return max(own, key=own.get) if own else ""


def profile_of(path: str, doc: list, diagnostics: list[Diagnostic]) -> ProfileResult:
    """The ProfileResult of a read hatchet file (sampler 'proton'): one KernelProfile per
    kernel name, its launches and GPU time summed over the scopes it ran under, its
    samples and stall reasons (PC sampling), and its samples per source line."""
    tree = doc[0] if doc else {}
    kernels = []
    for name, nodes in _kernel_nodes(tree).items():
        launches = int(sum(_number(n.get("metrics", {}), "count") for n in nodes))
        time_ns = sum(_number(n.get("metrics", {}), "time (ns)") for n in nodes)
        by_line, totals, _ = proton_figures({"children": nodes, "frame": {"name": ""}}, name)
        files: dict[str, int] = {}
        for key, m in by_line.items():
            file = key.rsplit(":", 1)[0]
            files[file] = files.get(file, 0) + m.get("samples", 0)
        kernels.append(
            KernelProfile(
                kernel=name,
                config=None,
                grid=(0, 0, 0),  # Proton keeps no grid
                calls=launches,
                window_ms=time_ns / 1e6,
                samples=totals.get("samples", 0),
                stalled=totals.get("stalled", 0),
                reasons={r: totals[r] for r in PROTON_REASONS if totals.get(r)},
                by_pc={},  # Proton keeps lines, not PCs
                source_file=_source_file(files),
                by_line=by_line,
                launches=launches,
            )
        )
    sampled = any(k.samples for k in kernels)
    if sampled and not any(k.by_line for k in kernels):
        diagnostics = [
            *diagnostics,
            Diagnostic(
                "record-lacks",
                "PC samples per kernel only: Proton kept no file:line frames (CUPTI mapped no PC to a line)",
                path,
            ),
        ]
    return ProfileResult(
        file=os.path.abspath(path),
        device=_device(doc[1] if len(doc) > 1 else None),
        triton_version="unknown (a Proton profile does not name it)",
        sampler="proton",
        kernels=tuple(kernels),
        diagnostics=tuple(diagnostics),
        settings={"mode": "pcsampling" if sampled else "time", "record": os.path.abspath(path)},
    )


def read_profile(path: str) -> ProfileResult:
    """The Proton profile at `path` (see the module's docstring)."""
    doc, diagnostics = read_hatchet(path)
    return profile_of(path, doc, diagnostics)


@dataclass(frozen=True)
class JoinedKernel:
    """A profile's kernel joined to a build's kernel of the same name: the profile's hot
    lines, the heat on the lines of the build kernel's stages (heat_for), and each
    stage's lines per source line (its source map), for a table to say where a hot
    source line went."""

    profile: KernelProfile
    kernel: CompiledKernel
    hot: HotLines
    heat: dict[str, dict[int, LineHeat]]
    links: dict[str, dict[int, tuple[int, ...]]]


def join_profile(profile: ProfileResult, result: CompileResult) -> dict[str, JoinedKernel]:
    """The profile's kernels that a build has by name (kernel name -> JoinedKernel); of a
    kernel with several configs, the launched (chosen) one. A profile whose lines are of
    another file than the build kernel's source is not joined."""
    out = {}
    for p in profile.kernels:
        mine = [k for k in result.kernels if k.name == p.kernel and k.status == "compiled"]
        if not mine:
            continue
        kernel = next((k for k in mine if k.chosen), mine[0])
        if p.source_file and kernel.source_file and not same_source(p.source_file, kernel.source_file):
            continue
        hot = attribute(p)
        smap = source_map_of(kernel, kernel.source_file or "")
        out[p.kernel] = JoinedKernel(
            p, kernel, hot, heat_for(hot, kernel.stages, smap, ""), dict(smap.by_source)
        )
    return out
