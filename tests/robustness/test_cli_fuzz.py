"""Every verb of the command line, given bad arguments, says so in a message with a
documented exit status (kx_core.cli.args): never a traceback, an internal error or a
signal. Arguments are drawn by hypothesis from values real users mistype."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kx_core import cli
from kx_core.cli.args import EXIT_INTERNAL
from kx_testing import BAD, KERNELS, ROOT

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
)
SHARED = "#ttg.swizzled_shared<{vec = %s, perPhase = %s, maxPhase = 4, order = [1, 0]}>"
NUMBERS = st.sampled_from(
    ["0", "-1", "1", "3", "16", "64", "nan", "inf", "1e9", "", "x", "99999999999999999999"]
)
SHAPES = st.sampled_from(
    ["64x64", "0x0", "64", "48x64", "1x1", "64x64x64x64x64", "-4x8", "axb", "65536x65536"]
)
LAYOUTS = st.one_of(
    st.just(BLOCKED),
    st.builds(lambda v, p: SHARED % (v, p), NUMBERS, NUMBERS),
    st.sampled_from(
        ["", "#blocked", "garbage<{", "#ttg.nvidia_mma<{versionMajor = 99}>", "#ttg.slice<{dim = 5}>"]
    ),
)
FILES = st.sampled_from(
    [
        str(ROOT),
        "/nonexistent.py",
        "/proc/x",
        str(BAD / "syntax_error.py"),
        str(ROOT / "README.md"),
        "/dev/null",
    ]
)


def run(argv: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as e:  # argparse's usage errors
            code = e.code if isinstance(e.code, int) else 2
    assert "Traceback" not in out.getvalue() + err.getvalue(), (argv, err.getvalue())
    assert code != EXIT_INTERNAL, (argv, err.getvalue())
    assert code in (0, 1, 2), (argv, code, err.getvalue())
    return code


FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(
    LAYOUTS, SHAPES, st.sampled_from([[], ["--bits", "0"], ["--bits", "16"], ["--warp", "-1"], ["--json"]])
)
def test_layout(layout, shape, extra):
    run(["layout", layout, "--shape", shape, *extra])


@FUZZ
@given(SHAPES, NUMBERS, NUMBERS, NUMBERS, st.sampled_from(["1,0", "0,1", "2,0", "x", "0"]))
def test_coalesce(shape, bits, warps, contiguity, order):
    run(
        [
            "coalesce",
            "--shape",
            shape,
            "--elem-bits",
            bits,
            "--num-warps",
            warps,
            "--contiguity",
            contiguity,
            "--order",
            order,
        ]
    )


@FUZZ
@given(FILES, st.sampled_from(["--timeout", "--jobs", "--num-warps", "--memory-limit", "--grid"]), NUMBERS)
def test_compile_options(file, option, value):
    run(["compile", file, option, value, "--no-cache"])


@FUZZ
@given(
    st.sampled_from(
        ["(+ a", ")", "(", "(+ 1 2)", "(" * 600 + "x" + ")" * 600, "", "(f)", str(BAD / "syntax_error.py")]
    ),
    NUMBERS,
)
def test_egraph(term, steps):
    run(["egraph", term, "--steps", steps, "--seconds", "5"])


@FUZZ
@given(FILES, st.sampled_from([["-cse"], ["-no-such-pass"], ["-tritongpu-coalesce=x"], []]))
def test_lit_and_opt(file, passes):
    run(["lit", file])
    run(["opt", file, *passes])


def test_kernels_and_arg_values():
    run(["kernels", str(ROOT)])
    run(["kernels", str(BAD / "syntax_error.py")])
    for value in ("fp16[", "fp99[4]", "fp16[4]:1,2", "'unterminated", "fp16[-1]"):
        run(
            [
                "compile",
                str(KERNELS / "no_launch.py"),
                "--kernel",
                "axpy_kernel",
                "--arg",
                f"x_ptr={value}",
                "--no-cache",
            ]
        )


def test_interrupt_is_a_message():
    """Ctrl-C while a compile runs: 'interrupted', status 130, no traceback."""
    import os
    import signal
    import time

    p = subprocess.Popen(
        [sys.executable, "-m", "kx_core.cli", "compile", str(BAD / "infinite_loop.py"), "--no-cache"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal delivers it: a suite started in the background (`nohup ... &`)
        # hands its children SIGINT ignored, and Python then never raises KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
