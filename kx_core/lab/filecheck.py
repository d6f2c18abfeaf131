"""T5 · A FileCheck: how Triton's lit tests decide pass or fail.

Every file under triton/test/ starts with a RUN line such as
    // RUN: triton-opt %s -split-input-file -tritongpu-coalesce | FileCheck %s
lit runs the pass, pipes the output to LLVM's FileCheck, and FileCheck matches the
`// CHECK...` lines of the same file against it. Directives, as LLVM's FileCheck has them:

  CHECK:          match at or after the end of the previous match
  CHECK-NEXT:     match on the line right after the previous match's line
  CHECK-SAME:     match on the same line as the previous match, after it
  CHECK-EMPTY:    the next line is empty
  CHECK-NOT:      must not occur between the previous match and the next positive one
  CHECK-LABEL:    found first, in order; they cut the input into blocks no check crosses
  CHECK-DAG:      consecutive DAG checks match in any order, without overlapping
  CHECK-COUNT-n:  n matches in a row

Patterns are literal except `{{regex}}`, `[[VAR:regex]]` (define) and `[[VAR]]` (use);
with --enable-var-scope only `$`-prefixed variables survive a CHECK-LABEL. Runs of
horizontal whitespace in pattern and input match each other (FileCheck's default). A
failure names the check's line, its kind, and where in the input the search stopped.
tests/filecheck/test_against_llvm.py compares the verdicts with LLVM's FileCheck.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("CHECK", "NEXT", "SAME", "NOT", "LABEL", "DAG", "COUNT", "EMPTY")
_SUFFIX = {
    "": "CHECK",
    "-NEXT": "NEXT",
    "-SAME": "SAME",
    "-NOT": "NOT",
    "-LABEL": "LABEL",
    "-DAG": "DAG",
    "-EMPTY": "EMPTY",
}


class CheckFailure(AssertionError):
    """A failed FileCheck run; `check_line` and `input_line` say where (1-based, or None)."""

    def __init__(self, message: str, check_line: int | None = None, input_line: int | None = None):
        super().__init__(message)
        self.check_line = check_line
        self.input_line = input_line


@dataclass(frozen=True)
class Check:
    kind: str
    pattern: str
    line: int
    count: int = 1  # for CHECK-COUNT-n

    @property
    def name(self) -> str:
        return (
            "CHECK"
            if self.kind == "CHECK"
            else f"CHECK-{self.kind}"
            if self.kind != "COUNT"
            else f"CHECK-COUNT-{self.count}"
        )


def _directive_re(prefix: str | list[str]) -> re.Pattern:
    # Example: "// CHECK-NEXT: tt.load" or "; MMA-COUNT-2: mma.sync". The prefix must
    # not continue a longer word (as in LLVM: "XCHECK:" is not a CHECK). Several
    # prefixes (--check-prefixes=A,B) are checked together, in file order.
    prefixes = [prefix] if isinstance(prefix, str) else list(prefix)
    alternation = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    return re.compile(
        r"(?<![\w-])(?:" + alternation + r")(-NEXT|-SAME|-NOT|-LABEL|-DAG|-EMPTY|-COUNT-(\d+)|):(.*)$"
    )


def checks_of(source: str, prefix: str = "CHECK") -> list[Check]:
    """The checks of a file, in order. CHECK-COUNT-n stays one Check with count n."""
    rx = _directive_re(prefix)
    out = []
    for no, line in enumerate(source.splitlines(), start=1):
        m = rx.search(line)
        if not m:
            continue
        suffix, n, pattern = m.group(1), m.group(2), m.group(3).strip()
        if suffix.startswith("-COUNT-"):
            if int(n) < 1:
                raise CheckFailure(f"line {no}: invalid count in -COUNT specification", no)
            out.append(Check("COUNT", pattern, no, int(n)))
        else:
            out.append(Check(_SUFFIX[suffix], pattern, no))
    return out


def parse_checks(source, prefix="CHECK"):
    """[(kind, pattern, line_no)] (the drill's shape): CHECK-COUNT-n gives n CHECKs."""
    out = []
    for c in checks_of(source, prefix):
        if c.kind == "COUNT":
            out.extend(("CHECK", c.pattern, c.line) for _ in range(c.count))
        else:
            out.append((c.kind, c.pattern, c.line))
    return out


# Example pattern: "[[ptr:%.*]] = ttg.convert_layout {{.*}} -> tensor<64x[[N]]xf32"
_PIECE_RE = re.compile(r"\{\{(.*?)\}\}|\[\[(\$?[A-Za-z_][\w]*)(?::(.*?))?\]\]")


def _literal(text: str) -> str:
    """A literal piece: whitespace runs match whitespace runs, the rest exactly."""
    parts = re.split(r"[ \t]+", text)
    return r"[ \t]+".join(re.escape(p) for p in parts)


def compile_pattern(pat, env):
    """A FileCheck pattern as a Python regex. Returns (regex, [names it defines]).
    Uses of variables are replaced by their (escaped) values; an undefined one raises
    KeyError naming it."""
    out, names, pos = [], [], 0
    for m in _PIECE_RE.finditer(pat):
        out.append(_literal(pat[pos : m.start()]))
        regex, var, definition = m.group(1), m.group(2), m.group(3)
        if regex is not None:
            out.append(f"(?:{_line_bound(regex)})")
        elif definition is not None:
            if var in names:
                raise CheckFailure(f"variable {var} defined twice in one pattern")
            names.append(var)
            out.append(f"(?P<{_group_name(var)}>{_line_bound(definition)})")
        else:
            if var in names:
                out.append(f"(?P={_group_name(var)})")
            elif var not in env:
                raise KeyError(var)
            else:
                out.append(_literal(env[var]) if env[var] else "")
        pos = m.end()
    out.append(_literal(pat[pos:]))
    # MULTILINE: ^ and $ hold at line ends, as in LLVM's newline-sensitive regexes
    return re.compile("".join(out), re.M), names


def _line_bound(regex: str) -> str:
    """A FileCheck regex made newline-sensitive as LLVM compiles it (Regex::Newline): a
    negated class never matches a line end, so `{{[^,]*}}` stops at the end of the line
    (in Python it would run on into the next). `[^]a]` keeps its leading `]` literal."""
    out, i = [], 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if regex.startswith("[^", i):
            out.append("[^\\n")
            i += 2
            if i < len(regex) and regex[i] == "]":
                out.append("\\]")
                i += 1
            while i < len(regex) and regex[i] != "]":  # copy the class to its end
                step = 2 if regex[i] == "\\" else 1
                out.append(regex[i : i + step])
                i += step
            continue
        if ch == "[":  # a positive class: copy it whole (a "[^" inside is literal)
            j = i + 1
            if j < len(regex) and regex[j] == "]":
                j += 1
            while j < len(regex) and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            out.append(regex[i : j + 1])
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _group_name(var: str) -> str:
    return ("G_" + var[1:]) if var.startswith("$") else var


def _canonical(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


class _Matcher:
    def __init__(self, text: str, enable_var_scope: bool):
        self.text = text
        self.env: dict[str, str] = {}
        self.scope = enable_var_scope

    def line_of(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def regex(self, check: Check):
        try:
            rx, names = compile_pattern(check.pattern, self.env)
        except KeyError as e:
            raise CheckFailure(
                f"line {check.line}: {check.name}: uses undefined variable [[{e.args[0]}]]", check.line
            ) from None
        except re.error as e:
            raise CheckFailure(f"line {check.line}: {check.name}: invalid regex: {e}", check.line) from None
        return rx, names

    def search(self, check: Check, start: int, end: int):
        rx, names = self.regex(check)
        m = rx.search(self.text, start, end)
        if m and names:
            for n in names:
                self.env[n] = m.group(_group_name(n))
        return m

    def find(self, check: Check, start: int, end: int):
        m = self.search(check, start, end)
        if m is None:
            raise CheckFailure(
                f"line {check.line}: {check.name}: expected string not found in input: {check.pattern!r} "
                f"(searched from input line {self.line_of(start)})",
                check.line,
                self.line_of(start),
            )
        return m

    def check_nots(self, nots: list[Check], start: int, end: int) -> None:
        for n in nots:
            rx, _ = self.regex(n)
            m = rx.search(self.text, start, end)
            if m:
                raise CheckFailure(
                    f"line {n.line}: CHECK-NOT: excluded string found in input: {n.pattern!r} at input line "
                    f"{self.line_of(m.start())}",
                    n.line,
                    self.line_of(m.start()),
                )


def _run_block(
    mt: _Matcher, checks: list[Check], start: int, end: int, first_after_label: bool, implicit: list[Check]
) -> None:
    """Match a block's checks (between two labels) from `start`, not past `end`.
    `implicit` (--implicit-check-not) joins the CHECK-NOTs before every positive match."""
    pos = start
    prev_end = start if first_after_label else None  # NEXT/SAME relative to the label's match
    nots: list[Check] = list(implicit)
    i = 0
    while i < len(checks):
        c = checks[i]
        if c.kind == "NOT":
            nots.append(c)
            i += 1
            continue
        if c.kind == "DAG":
            j = i
            while j < len(checks) and checks[j].kind == "DAG":
                j += 1
            first, after = _match_dag_group(mt, checks[i:j], pos, end)
            i = j
        elif c.kind == "EMPTY":
            first = after = _match_empty(mt, c, prev_end, end)
            i += 1
        else:
            first, after = _match_positive(mt, c, pos, end, prev_end)
            i += 1
        mt.check_nots(nots, pos, first)  # the NOTs hold between the last match and this one
        nots = list(implicit)
        pos = prev_end = after
    mt.check_nots(nots, pos, end)


def _match_dag_group(mt: _Matcher, group: list[Check], pos: int, end: int) -> tuple[int, int]:
    """Consecutive CHECK-DAGs in any order, no two matches overlapping: (the earliest
    match's start, the furthest match's end)."""
    matched: list[tuple[int, int]] = []
    for d in group:
        search_from = pos
        while True:
            m = mt.find(d, search_from, end)
            overlaps = any(m.start() < e and s < m.end() for s, e in matched)
            empty_inside = m.start() == m.end() and any(s <= m.start() < e for s, e in matched)
            if not overlaps and not empty_inside:
                break
            search_from = m.start() + 1  # overlaps an earlier DAG match: look further on
        matched.append((m.start(), m.end()))
    return min(s for s, _ in matched), max(e for _, e in matched)


def _match_empty(mt: _Matcher, c: Check, prev_end: int | None, end: int) -> int:
    """CHECK-EMPTY: the line after the previous match is empty; returns that line's start."""
    if prev_end is None:
        raise CheckFailure(f"line {c.line}: CHECK-EMPTY: no previous match to follow", c.line)
    nl = mt.text.find("\n", prev_end, end)
    if nl == -1 or nl + 1 > len(mt.text):
        raise CheckFailure(f"line {c.line}: CHECK-EMPTY: no line after the previous match", c.line)
    nl2 = mt.text.find("\n", nl + 1)
    line_end = len(mt.text) if nl2 == -1 else nl2
    if line_end != nl + 1 or nl + 1 > end:
        raise CheckFailure(
            f"line {c.line}: CHECK-EMPTY: the line after the previous match (input line "
            f"{mt.line_of(nl + 1)}) is not empty",
            c.line,
            mt.line_of(nl + 1),
        )
    return nl + 1


def _match_positive(mt: _Matcher, c: Check, pos: int, end: int, prev_end: int | None) -> tuple[int, int]:
    """CHECK, CHECK-NEXT, CHECK-SAME, CHECK-COUNT-n: (the first match's start, the last
    match's end)."""
    first = None
    for _ in range(c.count if c.kind == "COUNT" else 1):
        m = mt.find(c, pos, end)
        if c.kind in ("NEXT", "SAME") and prev_end is None:
            raise CheckFailure(f"line {c.line}: {c.name}: no previous match to follow", c.line)
        newlines = mt.text.count("\n", prev_end, m.start()) if prev_end is not None else 0
        if c.kind == "NEXT" and newlines != 1:
            where = (
                "is on the same line as the previous match"
                if newlines == 0
                else "is not on the line after the previous match"
            )
            raise CheckFailure(
                f"line {c.line}: CHECK-NEXT: {c.pattern!r} {where} (found at input line {mt.line_of(m.start())})",
                c.line,
                mt.line_of(m.start()),
            )
        if c.kind == "SAME" and newlines != 0:
            raise CheckFailure(
                f"line {c.line}: CHECK-SAME: {c.pattern!r} is not on the same line as the previous match "
                f"(found at input line {mt.line_of(m.start())})",
                c.line,
                mt.line_of(m.start()),
            )
        first = m.start() if first is None else first
        pos = prev_end = m.end()
    return first, pos


def filecheck(check_source, output, prefix="CHECK", enable_var_scope=False, implicit_check_not=()):
    """Raise CheckFailure (an AssertionError) unless `output` satisfies the checks of
    `check_source`; True otherwise. `implicit_check_not`: patterns that must occur nowhere
    between the matches (FileCheck's --implicit-check-not)."""
    checks = checks_of(check_source, prefix)
    implicit = [Check("NOT", p, 0) for p in implicit_check_not]
    if not checks:
        raise CheckFailure(f"no check strings found with prefix '{prefix}:'")
    seen_positive = False
    for c in checks:
        if c.kind in ("NEXT", "SAME", "EMPTY") and not seen_positive:
            # as in LLVM: these need an earlier positive check (CHECK-DAG and CHECK-NOT
            # do not count); after a DAG group they follow the group's furthest match
            raise CheckFailure(f"line {c.line}: found '{c.name}' without previous 'CHECK: line'", c.line)
        seen_positive |= c.kind not in ("NOT", "DAG")
        if not c.pattern and c.kind not in ("EMPTY", "NOT"):
            raise CheckFailure(f"line {c.line}: found empty check string with prefix '{prefix}:'", c.line)
        if c.kind == "LABEL" and any(m.group(2) for m in _PIECE_RE.finditer(c.pattern)):
            # LLVM rejects the file: a label must be findable before any variable is set
            raise CheckFailure(f"line {c.line}: found 'CHECK-LABEL:' with variable definition or use", c.line)
    mt = _Matcher(_canonical(output), enable_var_scope)
    # labels first: each after the last, and they cut the input into blocks
    labels = [(i, c) for i, c in enumerate(checks) if c.kind == "LABEL"]
    bounds: list[tuple[int, int]] = []
    pos = 0
    for _, c in labels:
        m = mt.find(c, pos, len(mt.text))
        bounds.append((m.start(), m.end()))
        pos = m.end()
    # the blocks: before the first label, then after each
    cuts = [-1] + [i for i, _ in labels] + [len(checks)]
    for b in range(len(cuts) - 1):
        lo, hi = cuts[b] + 1, cuts[b + 1]
        start = bounds[b - 1][1] if b > 0 else 0
        end = bounds[b][0] if b < len(bounds) else len(mt.text)
        if b > 0:
            if enable_var_scope:
                mt.env = {k: v for k, v in mt.env.items() if k.startswith("$")}
            # re-match the label where it was found, so its captures are in scope
            mt.search(checks[cuts[b]], bounds[b - 1][0], bounds[b - 1][1])
        _run_block(mt, checks[lo:hi], start, end, b > 0, implicit)
    return True


def split_input_file(text):
    """triton-opt -split-input-file: chunks separated by a line `// -----`."""
    return [c.strip("\n") for c in re.split(r"^// -----\s*$", text, flags=re.M)]
