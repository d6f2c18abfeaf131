"""`kx links FILE --line N`: what one source line became in every stage, with the lines
whose operation kx followed to another line than the stage's debug info names (and the
other way round), as the app's stage panes show them.

    scale_shift  line 15: x = tl.load(x_ptr + offs, mask=mask)
      PTX      12 lines in 3 blocks: 52-55, 57-63, 70-75
               10 followed here: the debug info names lines 16-18 (inline asm)
"""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.base.words import counted
from kx_core.ir.main_instruction import blocks
from kx_core.ir.sourcemap import SourceMap, source_map_of
from kx_core.records.backends import ALL_STAGES, stages_for
from kx_core.records.results import CompiledKernel, CompileResult


def add_links_verb(sub, add_compile_options) -> None:
    p = sub.add_parser(
        "links", help="what one source line became in every stage, with the operations followed"
    )
    add_compile_options(p)
    p.add_argument("--line", type=int, required=True, metavar="N", help="the source line (1-based)")
    p.add_argument("--json", action="store_true")


def _ranges(lines) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in blocks(lines))


def kernel_links(kernel: CompiledKernel, source_file: str, line: int) -> dict:
    """stage -> {"lines", "followed_here", "claimed_here"} for one kernel and source line:
    followed_here are this line's operations the debug info puts on another line;
    claimed_here the lines the debug info puts here whose operation is another line's."""
    sm: SourceMap = source_map_of(kernel, source_file)
    links, disputes = sm.ir_lines(line), sm.disagreements(line)
    out = {}
    for stage in (s.name for s in stages_for(kernel.target) if s.name in links):
        rows = disputes.get(stage, ())
        out[stage] = {
            "lines": list(links[stage]),
            "followed_here": [dict(f.to_json(), ir_line=n) for n, f in rows if f.line == line],
            "claimed_here": [dict(f.to_json(), ir_line=n) for n, f in rows if f.claimed == line],
        }
    return out


def links_output(args: argparse.Namespace, result: CompileResult) -> int:
    source = result.file
    text = open(source, encoding="utf-8", errors="replace").read().splitlines()
    if not 0 < args.line <= len(text):
        print(f"kx: {source} has {len(text)} lines, not {args.line}", file=sys.stderr)
        return 2
    kernels = [k for k in result.kernels if k.status == "compiled"]
    per_kernel = [(k, kernel_links(k, source, args.line)) for k in kernels]
    if args.json:
        json.dump(
            {
                "file": source,
                "line": args.line,
                "kernels": [{"kernel": k.display_name, "stages": s} for k, s in per_kernel],
            },
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
        return result.exit_status
    shown = text[args.line - 1].strip()
    for k, stages in per_kernel:
        if not stages:
            continue
        print(f"{k.display_name}  line {args.line}: {shown}")
        for stage, row in stages.items():
            name = ALL_STAGES[stage].display_name
            runs = blocks(row["lines"])
            count = len(row["lines"])
            print(
                f"  {name:<8} {counted(count, 'line')} in {counted(len(runs), 'block')}: {_ranges(row['lines'])}"
            )
            if row["followed_here"]:
                claimed = sorted({f["claimed"] for f in row["followed_here"]})
                vias = sorted({f["via"] for f in row["followed_here"]})
                print(
                    f"           {len(row['followed_here'])} followed here: the debug info names "
                    f"line{'s' * (len(claimed) > 1)} {_ranges(claimed)} ({', '.join(vias)})"
                )
            if row["claimed_here"]:
                owners = sorted({f["line"] for f in row["claimed_here"]})
                families = sorted({f["family"] for f in row["claimed_here"]})
                print(
                    f"           {len(row['claimed_here'])} named here by the debug info are "
                    f"line{'s' * (len(owners) > 1)} {_ranges(owners)}'s {', '.join(families)}"
                )
    if not any(s for _, s in per_kernel):
        print(f"line {args.line} became nothing in any stage: {shown}")
    return result.exit_status
