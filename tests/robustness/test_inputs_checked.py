"""Every input is checked where it enters (issue 30, rows 8, 9 and 10): only regular
files are read (the same 2 MB cap as the app), option ranges are the parser's (exit 2,
naming the option and the range), targets the backend does not compile for are refused
before compiling, and a verb built on a compile prints the compile's diagnostics when it
has nothing to show."""

from __future__ import annotations

import os
import time

import pytest

from kx_testing import BAD, KERNELS, run_kx

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
)
VECTOR_ADD = str(KERNELS / "vector_add.py")


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "kernel.py"
    os.mkfifo(fifo)
    started = time.monotonic()
    p = run_kx("compile", str(fifo))
    assert time.monotonic() - started < 60  # before: it waited for a writer forever
    assert p.returncode == 2 and "is a FIFO (named pipe), not a file kx can read" in p.stderr


def test_a_device_is_refused_not_read():
    p = run_kx("compile", "/dev/zero")
    assert p.returncode == 2 and "/dev/zero is a character device" in p.stderr


def test_the_size_cap_is_the_apps(tmp_path):
    from kx_core.compile.wire.source_file import MAX_KERNEL_FILE_BYTES

    big = tmp_path / "big.py"
    big.write_text("# " + "x" * MAX_KERNEL_FILE_BYTES + "\n")
    p = run_kx("compile", str(big))
    assert p.returncode == 2 and "kernel files over 2 MB are not read" in p.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["layout", BLOCKED, "--shape", "64x64", "--warp", "99999"], "--warp 99999 is out of range: the layout has 4 warps (0 to 3)"),
        (["layout", BLOCKED, "--shape", "4096x4096", "--json"], "takes at most 1,048,576"),
        (["coalesce", "--shape", "64x64", "--num-warps", "1048576"], "argument --num-warps: 1048576 is out of range: a power of two from 1 to 32"),
        (["egraph", "x", "--steps", "-1"], "argument --steps: -1 is out of range: 0 or more"),
        (["roofline", VECTOR_ADD, "--flops", "-5"], "argument --flops: -5: a positive, finite number"),
        (["bench", VECTOR_ADD, "--timeout", "-1"], "argument --timeout: -1: a positive, finite number of seconds"),
        (["autotune", "-", "--t3", "0x0x0"], "argument --t3: '0x0x0': three positive sizes"),
        (["autotune", "-", "--t3", "64x64x64", "--top-k", "0"], "argument --top-k: 0 is out of range: 1 or more"),
        (["autotune", "-", "--t3", "64x64x64", "--top-k", "-3"], "argument --top-k: -3 is out of range: 1 or more"),
        (["compile", VECTOR_ADD, "--memory-limit", "1"], "argument --memory-limit: 1 MiB is too little"),
        (["compile", VECTOR_ADD, "--target", "cuda:999"], "cuda:999 is not a target CUDA compiles for"),
        (["compile", VECTOR_ADD, "--target", "hip:gfx000"], "hip:gfx000 is not a target ROCm compiles for"),
    ],
)  # fmt: skip
def test_a_value_out_of_range_is_exit_2_naming_the_option(args, message):
    p = run_kx(*args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and "Traceback" not in p.stderr


def test_passes_show_past_the_last_pass_says_the_range():
    p = run_kx("passes", VECTOR_ADD, "--target", "cuda:90", "--show", "99999")
    assert p.returncode == 2 and "--show 99999 is out of range (passes add_kernel: 0 to " in p.stderr


def test_an_alias_with_from_given_names_the_file_not_a_missing_from(tmp_path):
    ttgir = tmp_path / "k.ttgir"
    ttgir.write_text(f"#blocked = {BLOCKED.removeprefix('#ttg.')}\n".replace("blocked<", "#ttg.blocked<", 1))
    p = run_kx("layout", "--shape", "64x64", "--alias", "#blocked9", "--from", str(ttgir))
    assert p.returncode == 2 and f"--alias #blocked9 is not defined in {ttgir}" in p.stderr
    assert "needs --from" not in p.stderr
    p = run_kx("layout", "--shape", "64x64", "--alias", "#blocked")
    assert p.returncode == 2 and "--alias #blocked needs --from FILE.ttgir" in p.stderr


@pytest.mark.parametrize("verb", ["summary", "roofline", "autotune", "stages"])
def test_a_verb_on_a_crashing_file_prints_the_located_diagnostic(verb):
    extra = ["--stage", "ttir"] if verb == "stages" else []
    p = run_kx(verb, str(BAD / "segfault.py"), "--target", "cuda:90", *extra)
    assert p.returncode == 1
    assert "segfault.py:" in p.stderr and "crash: the worker died (signal SIGSEGV) at line" in p.stderr
    assert "no compiled" not in p.stderr and "several kernels" not in p.stderr


def test_kernel_arguments_that_do_not_fit_are_exit_2_naming_them():
    p = run_kx("compile", VECTOR_ADD, "--target", "cuda:90", "--kernel", "add_kernel", "--arg", "nope=3")
    assert p.returncode == 2 and "argument: add_kernel has no parameter nope" in p.stdout
    p = run_kx(
        "compile",
        VECTOR_ADD,
        "--target",
        "cuda:90",
        "--kernel",
        "add_kernel",
        "--signature",
        "*fp32,*fp32,i32",
    )
    assert p.returncode == 2 and "signature has 3 types but the kernel has 4" in p.stdout


def test_the_timeout_bounds_probing_an_interpreter(tmp_path):
    slow = tmp_path / "python"
    slow.write_text("#!/bin/sh\nsleep 60\n")
    slow.chmod(0o755)
    started = time.monotonic()
    p = run_kx("compile", VECTOR_ADD, "--python", str(slow), "--timeout", "2")
    assert time.monotonic() - started < 30  # before: a fixed 120 s
    assert p.returncode == 1 and "did not answer within 2 s (--timeout)" in p.stdout


BAD_ASM = """\
import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("not.an.instruction $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + offs, y)


x = torch.zeros(128, dtype=torch.int32, device="cuda")
k[(1,)](x, BLOCK=128)
"""


def test_an_assembler_failure_shows_its_own_message_on_no_line_of_the_users(tmp_path):
    from kx_core.compile import CompileRequest, compile_file

    path = tmp_path / "bad_asm.py"
    path.write_text(BAD_ASM)
    result = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    (d,) = [d for d in result.diagnostics if d.fatal]
    assert d.kind == "compile" and d.line is None and d.message.startswith("ptxas failed")
    assert "Unknown modifier '.an'" in d.message and "Repro command" not in d.message
    assert result.exit_status == 1


def test_os_exit_before_a_launch_is_located(tmp_path):
    from kx_core.compile import CompileRequest, compile_file

    path = tmp_path / "exits.py"
    path.write_text("import os\nimport torch\nimport triton\n\n\nos._exit(3)\n")
    for cold in (True, False):  # a fresh worker, and a warm server's child when one answers
        result = compile_file(CompileRequest(str(path), target="cuda:90", cold=cold), use_cache=False)
        (d,) = [d for d in result.diagnostics if d.fatal]
        assert (d.kind, d.line) == ("crash", 6) and "the file called os._exit(3)" in d.message


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--arg", "n=3"], "--arg and --grid call one kernel: name it with --kernel NAME"),
        (["--grid", "4"], "--arg and --grid call one kernel"),
        (["--signature", "*fp32"], "--signature compiles one kernel"),
        (["--num-warps", "8"], "--num-warps set a launch kx makes"),
        (["--kernel", "add_kernel", "--signature", "*fp32", "--arg", "n=1"], "two ways to give a launch"),
        (["--constexpr", "BLOCK=1"], "--constexpr goes with --kernel and --signature"),
    ],
)
def test_options_that_go_with_no_mode_are_refused_not_ignored(args, message):
    """Before, `--num-warps 8` on a file run as it is was ignored: exit 0 with the file's
    own num_warps=4 kernel shown."""
    p = run_kx("compile", VECTOR_ADD, "--target", "cuda:90", *args)
    assert p.returncode == 2 and message in p.stderr


def test_every_request_has_one_mode():
    from kx_core.compile import CompileRequest

    assert CompileRequest("f.py").mode == "run"
    assert CompileRequest("f.py", import_only=True).mode == "list"
    assert CompileRequest("f.py", kernel="k", args={"n": "1"}, import_only=True).mode == "call"
    assert CompileRequest("f.py", kernel="k", signature="*fp32", num_warps=2).check().mode == "signature"


def _stuck_after_a_compile(tmp_path, where: str):
    text = (KERNELS / "vector_add.py").read_text()
    if where == "grid":
        text = text.replace(
            "add_kernel[grid]",
            "def grid(meta):\n        while True:  # stuck\n            time.sleep(0.05)\n    add_kernel[grid]",
        )
    else:  # at module level, after the launch compiled
        text += "\nwhile True:  # stuck\n    time.sleep(0.05)\n"
    # stuck idling, not spinning: the timeout's stack dump names the line either way, and
    # a spinning file held a core for the whole 20 s the other tests wanted
    text = "import time\n" + text
    path = tmp_path / f"stuck_{where}.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("where", ["grid", "after"])
def test_a_timeout_after_tritons_first_compile_names_its_line(tmp_path, where):
    """LLVM takes SIGUSR1 when Triton first compiles: the stack dump before the kill
    uses a signal it leaves alone, so the line is still named (row 9)."""
    from kx_core.compile import CompileRequest, compile_file

    path = _stuck_after_a_compile(tmp_path, where)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "# stuck" in t)
    result = compile_file(
        CompileRequest(str(path), target="cuda:90", timeout_s=20, cold=True), use_cache=False
    )
    (d,) = [d for d in result.diagnostics if d.kind == "timeout"]
    assert d.line in (line, line + 1) and f"while running line {d.line}" in d.message
