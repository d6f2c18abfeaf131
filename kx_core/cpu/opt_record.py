"""Every loop's vectorization remark from GCC's optimisation record
(`-fsave-optimization-record` writes `<base>.opt-record.json.gz`).

`-fopt-info-vec-all` prints a loop's remark at the loop's line and stops there; the JSON
record says more, and kx needs it: each record names the function whose code it is in
(`"function": "_ZN6kx_ext8silu_mulEPKfPfllb._omp_fn.0"`, the OpenMP outlined body) and
how the loop got there (`"inlining_chain"`: the helper the loop is written in, then each
call site it was inlined at). So a helper's loop inlined into an OpenMP region is
remarked on the helper's line, in the outlined body's Vectorization stage, "inlined at
line 38"; and a failed loop's reasons, which GCC nests under the analysis scope
(`=== analyze_loop_nest ===` -> `failure: not vectorized: loop contains function calls
...`), come with it.

The record is a list `[header, passes, records]`; a record is
`{"kind": "success"|"failure"|"note"|"scope", "pass": id, "location": {file, line,
column}, "message": [str | {"stmt": ...} | ...], "function": mangled, "inlining_chain":
[{"fndecl": ...}, {"site": {...}, "fndecl": ...}, ...], "children": [...]}`."""

from __future__ import annotations

import glob
import gzip
import json
import os
import re

from kx_core.cpu.definitions import is_user_file
from kx_core.cpu.remarks import VectorRemark

# Example: "loop vectorized using 32 byte vectors"
_WIDTH_RE = re.compile(r"vectorized using (\d+) byte vectors")
# Example: "void kx_ext::scale_row(float*, int64_t, float)" -> "kx_ext::scale_row"
_DECL_NAME_RE = re.compile(r"([\w:~]+(?:<.*>)?)\s*\(")
# the messages that start or end a loop's analysis (its location is the loop's)
_LOOP_MESSAGES = ("=== analyze_loop_nest ===", "couldn't vectorize loop", "loop vectorized")


def find_record(folder: str) -> str | None:
    """The `.opt-record.json.gz` GCC wrote in `folder` (named after the output)."""
    found = sorted(glob.glob(os.path.join(folder, "*.opt-record.json.gz")))
    return found[0] if found else None


def _text(message) -> str:
    """A record's message parts as one line: strings, and a statement's or a symbol's text."""
    parts = []
    for part in message or ():
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            parts.append(str(part.get("stmt") or part.get("symtab_node") or part.get("expr") or ""))
    return " ".join("".join(parts).split())


def _decl_name(fndecl: str) -> str:
    """A function's name without its signature; a lambda's as "a lambda in F"."""
    # Example: "kx_fix::scale_rows(float*, const float*, int64_t, int64_t)::<lambda(int64_t)>"
    if "::<lambda" in (fndecl or ""):
        return f"a lambda in {_decl_name(fndecl.rsplit('::<lambda', 1)[0])}"
    m = _DECL_NAME_RE.search(fndecl or "")
    return m.group(1) if m else fndecl


def _file(location: dict, cwd: str) -> str:
    file = location.get("file", "")
    return file if os.path.isabs(file) else os.path.join(cwd, file)


def _where(record: dict, source: str, cwd: str) -> tuple[int, int, str] | None:
    """(line, column, how it got there) of a record's loop in the user's files: the loop's
    own line, or, for a loop of a library header inlined into the user's code, the first
    call site in the user's files."""
    loc = record.get("location")
    if not loc:
        return None
    chain = record.get("inlining_chain") or []
    # chain[i-1]'s body was inlined at chain[i]["site"] into chain[i]["fndecl"]
    sites = [
        (_decl_name(chain[i - 1].get("fndecl", "")), c["site"]) for i, c in enumerate(chain) if "site" in c
    ]

    def at(site: dict) -> str:  # a call site: its line, with its file's name when not the source's
        same = os.path.realpath(_file(site, cwd)) == os.path.realpath(source)
        return f"line {site['line']}" if same else f"{os.path.basename(site.get('file', ''))}:{site['line']}"

    if is_user_file(_file(loc, cwd), source):
        how = ", ".join(f"{name} inlined at {at(site)}" for name, site in sites)
        return loc["line"], loc.get("column", 0), how
    for name, site in sites:
        if is_user_file(_file(site, cwd), source):
            where = f"{os.path.basename(loc.get('file', ''))}:{loc['line']}"
            return site["line"], site.get("column", 0), f"a loop of {name} ({where}) inlined here"
    return None


def _failures(record: dict):
    for child in record.get("children") or ():
        if child.get("kind") == "failure":
            yield _text(child.get("message"))
        yield from _failures(child)


def loop_remarks(record_path: str, source: str) -> list[VectorRemark]:
    """Every loop of the user's files the loop vectorizer (pass `vect`) looked at, once per
    function it is compiled in: vectorized (and how wide), or not and why."""
    with gzip.open(record_path, "rt", encoding="utf-8") as f:
        _header, passes, records = json.load(f)
    vect = set()
    stack = list(passes)
    while stack:
        p = stack.pop()
        stack += p.get("children") or []
        if p.get("name") == "vect":
            vect.add(p.get("id"))
    cwd = os.path.dirname(os.path.abspath(source))
    loops: dict[tuple, dict] = {}
    reasons: dict[tuple, list[str]] = {}
    for r in records:
        if r.get("pass") not in vect or r.get("kind") == "note":
            continue
        where = _where(r, source, cwd)
        if where is None:
            continue
        key = (r.get("function", ""), *where)
        message = _text(r.get("message"))
        width = _WIDTH_RE.search(message)
        # a loop is where the vectorizer began a loop nest's analysis or said its verdict
        # (a statement's failure, "statement clobbers memory", sits at the statement)
        if message.startswith(_LOOP_MESSAGES) or (r.get("kind") == "success" and width):
            loop = loops.setdefault(key, {"widths": [], "missed": False})
            if r.get("kind") == "success" and width:
                loop["widths"].append(int(width.group(1)))
            elif r.get("kind") == "failure":
                loop["missed"] = True
        if r.get("kind") == "failure":
            reasons.setdefault(key, []).append(message)
        if r.get("kind") in ("scope", "failure"):
            reasons.setdefault(key, []).extend(_failures(r))
    out = []
    for (function, line, column, how), loop in loops.items():
        if loop["widths"]:
            widths = sorted(set(loop["widths"]), reverse=True)
            message = f"loop vectorized using {widths[0]} byte vectors" + (
                f" (epilogue: {', '.join(map(str, widths[1:]))} byte vectors)" if widths[1:] else ""
            )
            out.append(VectorRemark(line, column, True, message, widths[0], function, how))
        elif loop["missed"]:
            found = dict.fromkeys(reasons.get((function, line, column, how), ()))
            why_not = [why for why in found if why and not why.startswith("couldn't vectorize loop")]
            # GCC's own summary first ("not vectorized: ..."), then the analysis' details
            why_not.sort(key=lambda why: not why.startswith("not vectorized"))
            message = "; ".join(why.removeprefix("not vectorized: ").rstrip(".") for why in why_not[:3])
            out.append(
                VectorRemark(line, column, False, message or "couldn't vectorize loop", None, function, how)
            )
    return sorted(out, key=lambda r: (r.function, r.line, r.column))
