"""kx's FileCheck against LLVM's (Debian's llvm-14-tools): generated (checks, input)
pairs covering every directive, variables, regexes, whitespace and var scope; the two
verdicts must agree on every one. `.ci/run` installs llvm-14-tools when it is absent."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from kx_core.base.tools import find_tool
from kx_core.lab.filecheck import CheckFailure, filecheck

LLVM_FILECHECK = find_tool("FileCheck") or "FileCheck"
pytestmark = pytest.mark.skipif(not Path(LLVM_FILECHECK).exists(), reason="LLVM's FileCheck is not installed")

WORDS = ["tt.load", "tt.store", "%0", "%1", "#blocked", "arith.addi", "foo", "bar", "x", "y"]
KINDS = [
    "CHECK",
    "CHECK-NEXT",
    "CHECK-SAME",
    "CHECK-NOT",
    "CHECK-LABEL",
    "CHECK-DAG",
    "CHECK-COUNT-2",
    "CHECK-EMPTY",
]


def _input(rng: random.Random) -> list[str]:
    lines = []
    for _ in range(rng.randint(3, 8)):
        if rng.random() < 0.12:
            lines.append("")
            continue
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 4))]
        sep = rng.choice([" ", "  ", "\t", " "])
        lines.append(sep.join(words))
    if rng.random() < 0.5:
        lines.insert(rng.randrange(len(lines) + 1), "func @" + rng.choice(["f", "g"]))
    return lines


def _pattern(rng: random.Random, lines: list[str], defined: list[str]) -> str:
    source = [w for ln in lines for w in ln.split()] or WORDS
    word = rng.choice(source) if rng.random() < 0.8 else rng.choice(WORDS + ["nope"])
    r = rng.random()
    if r < 0.1:
        return word + " " + rng.choice(source)
    if r < 0.2:
        return "{{" + re_escape_llvm(word[:2]) + ".*}}"
    if r < 0.3:
        name = rng.choice(["V", "W", "$G"])
        defined.append(name)
        return "[[" + name + ":" + re_escape_llvm(word) + "]]"
    if r < 0.4 and defined:
        return "[[" + rng.choice(defined) + "]]"
    if r < 0.45 and defined:
        return "[[UNDEF]]"
    return word


def re_escape_llvm(text: str) -> str:
    return "".join("\\" + ch if ch in ".%$#[]{}()*+?|^\\" else ch for ch in text)


def _checks(rng: random.Random, lines: list[str]) -> list[str]:
    """Checks that walk the input in order (so many pass), each one perturbed now and then
    (a word the input lacks, a kind that does not hold, an order swapped)."""
    out, defined = [], []
    line = 0
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(KINDS)
        line = min(len(lines) - 1, line + rng.choice([0, 1, 1, 2]))
        here = lines[line].split() or WORDS
        if kind == "CHECK-LABEL":
            out.append(f"// CHECK-LABEL: {rng.choice(['@f', '@g', 'func'])}")
        elif kind == "CHECK-EMPTY":
            out.append("// CHECK-EMPTY:")
        elif rng.random() < 0.85:
            word = rng.choice(here)
            r = rng.random()
            if r < 0.15:
                name = rng.choice(["V", "W", "$G"])
                defined.append(name)
                word = "[[" + name + ":" + re_escape_llvm(word) + "]]"
            elif r < 0.25 and defined:
                word = "[[" + rng.choice(defined) + "]]"
            elif r < 0.35:
                word = "{{" + re_escape_llvm(word[:2]) + ".*}}"
            out.append(f"// {kind}: {word}")
        else:
            out.append(f"// {kind}: {_pattern(rng, lines, defined)}")
    if len(out) > 1 and rng.random() < 0.15:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def cases(n: int, seed: int = 0):
    rng = random.Random(seed)
    for _ in range(n):
        lines = _input(rng)
        yield _checks(rng, lines), lines, rng.random() < 0.3


def llvm_verdict(tmp: Path, checks: list[str], lines: list[str], scope: bool) -> bool:
    (tmp / "c.txt").write_text("\n".join(checks) + "\n")
    (tmp / "i.txt").write_text("\n".join(lines) + "\n")
    cmd = [LLVM_FILECHECK, str(tmp / "c.txt"), f"--input-file={tmp / 'i.txt'}"]
    if scope:
        cmd.append("--enable-var-scope")
    return subprocess.run(cmd, capture_output=True, text=True).returncode == 0


def kx_verdict(checks: list[str], lines: list[str], scope: bool) -> bool:
    try:
        return filecheck("\n".join(checks) + "\n", "\n".join(lines) + "\n", enable_var_scope=scope)
    except CheckFailure:
        return False


def test_verdicts_agree_with_llvm(tmp_path):
    disagreements = []
    passes = 0
    kinds_seen = set()
    for checks, lines, scope in cases(600):
        expected = llvm_verdict(tmp_path, checks, lines, scope)
        passes += expected
        kinds_seen |= {c.split()[1].rstrip(":") for c in checks}
        if kx_verdict(checks, lines, scope) != expected:
            disagreements.append((checks, lines, scope, expected))
    assert kinds_seen >= {k for k in KINDS}
    assert 40 <= passes <= 560  # both verdicts are well exercised
    assert not disagreements, (
        "\n\n".join(
            f"LLVM says {'pass' if e else 'fail'} (var scope {s}):\n"
            + "\n".join(c)
            + "\n-- input --\n"
            + "\n".join(ln)
            for c, ln, s, e in disagreements[:5]
        )
        + f"\n({len(disagreements)} disagreements)"
    )


# (checks, input, var scope): the cases issue 16 found kx and LLVM parting on
EDGE_CASES = [
    (["// CHECK: foo{{[^z]*}}bar"], ["foo a", "b bar"], False),  # a negated class never crosses a line end
    (["// CHECK: foo{{[^z]*}}bar"], ["foo a b bar"], False),
    (["// CHECK: [[V:[^,]*]],", "// CHECK-NEXT: [[V]]"], ["a", "b,", "b"], False),
    (["// CHECK: x{{$}}", "// CHECK-NEXT: y"], ["x", "y"], False),  # $ holds at each line end
    (["// CHECK: {{^}}y"], ["x y", "y"], False),
    (["// CHECK: {{^}}y", "// CHECK-NOT: z"], ["x y", "z"], False),
    (["// CHECK-LABEL: [[F:@f]]"], ["@f"], False),  # labels may not use variables
    (["// CHECK-LABEL: @f{{.*}}"], ["@f(x)"], False),
    (
        ["// CHECK: [[A:%[0-9]+]] =", "// CHECK-LABEL: @g", "// CHECK: use [[A]]"],
        ["%1 =", "@g", "use %1"],
        True,
    ),
    (
        ["// CHECK: [[A:%[0-9]+]] =", "// CHECK-LABEL: @g", "// CHECK: use [[A]]"],
        ["%1 =", "@g", "use %1"],
        False,
    ),
    (
        ["// CHECK: [[$A:%[0-9]+]] =", "// CHECK-LABEL: @g", "// CHECK: use [[$A]]"],
        ["%1 =", "@g", "use %1"],
        True,
    ),
]


@pytest.mark.parametrize("checks,lines,scope", EDGE_CASES)
def test_line_ends_labels_and_scope_agree_with_llvm(tmp_path, checks, lines, scope):
    assert kx_verdict(checks, lines, scope) == llvm_verdict(tmp_path, checks, lines, scope)


def test_the_edge_cases_exercise_both_verdicts(tmp_path):
    verdicts = [llvm_verdict(tmp_path, c, ln, s) for c, ln, s in EDGE_CASES]
    assert verdicts[0] is False and verdicts[1] is True  # the line-end rule is what decides
    assert verdicts[6] is False and verdicts[7] is True
    assert verdicts[8] is False and verdicts[9] is True and verdicts[10] is True


def test_implicit_check_not_agrees_with_llvm(tmp_path):
    """--implicit-check-not: the pattern may occur nowhere between (or around) the matches."""
    checks = ["// CHECK: a", "// CHECK: b"]
    verdicts = []
    for lines in (["a", "b"], ["a", "x", "b"], ["x", "a", "b"], ["a", "b", "x"], ["a x b"]):
        (tmp_path / "c.txt").write_text("\n".join(checks) + "\n")
        (tmp_path / "i.txt").write_text("\n".join(lines) + "\n")
        cmd = [
            LLVM_FILECHECK,
            str(tmp_path / "c.txt"),
            f"--input-file={tmp_path / 'i.txt'}",
            "--implicit-check-not=x",
        ]
        llvm = subprocess.run(cmd, capture_output=True).returncode == 0
        try:
            mine = filecheck("\n".join(checks) + "\n", "\n".join(lines) + "\n", implicit_check_not=["x"])
        except CheckFailure:
            mine = False
        assert mine == llvm, lines
        verdicts.append(llvm)
    assert verdicts[0] and not any(verdicts[1:])
