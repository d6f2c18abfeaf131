"""Triton's own rules for every launch (issue 50, item 2): what the autotuner benchmarks
and how a launch specialises are Triton's decisions, taken from Triton's own code under
capture, here checked against that code run directly and against the H200's real runs of
the same files (fixtures/kernels/launch_rules/ground). Files in the styles of the libraries
that use each rule are in fixtures/kernels/launch_rules."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs.real_runs import compare
from kx_testing import ROOT, assert_as_real_run

RULES = ROOT / "fixtures" / "kernels" / "launch_rules"


def _module_without_running(path, name, launches="\nfor n, k in"):
    """The fixture's module with its kernels and pruner, its launches (from the line that
    starts with `launches`) left out."""
    text = path.read_text().split(launches, 1)[0]
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    exec(compile(text, str(path), "exec"), mod.__dict__)
    return mod


def test_the_configs_compiled_are_the_ones_tritons_pruning_returns():
    """An early_config_prune that builds new Config objects (gemlite's way): kx compiles
    exactly the configs Triton's own Autotuner.prune_configs returns for each launch
    (before: the list's configs, matched by identity, so none matched and every original
    config was compiled)."""
    path = RULES / "pruner_new_configs.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    tuner = _module_without_running(path, "kx_test_pruner").gemv_kernel
    expected = set()
    for n, k in ((4096, 8192), (2048, 512)):
        tuner.nargs = {"w_ptr": None, "x_ptr": None, "y_ptr": None, "N": n, "K": k}
        for cfg in tuner.prune_configs({}):
            kw = cfg.all_kwargs()
            expected.add((kw["BLOCK_N"], kw["BLOCK_K"], kw["SPLIT_K"], kw["num_warps"], kw["num_stages"]))
    compiled = {
        (c["BLOCK_N"], c["BLOCK_K"], c["SPLIT_K"], k.metadata.num_warps, k.metadata.num_stages)
        for k in r.kernels
        if k.status == "compiled" and (c := k.launch.constexprs if k.launch else k.specialization.constexprs)
    }
    assert compiled == expected
    # and the H200's real run of the file compiled exactly those (ground/, record_real_runs.py)
    real = json.loads((RULES / "ground" / "pruner_new_configs.json").read_text())
    c = compare(real, list(r.kernels))
    assert c.complete and not c.extra


def test_a_kernel_too_big_for_shared_memory_compiles_and_fails_at_loading():
    """Triton compiles a kernel whatever shared memory it needs and raises OutOfResources
    when the launch loads it (CompiledKernel._init_handles): a real run's record has the
    compile, then the file stops at the launch (modded-nanogpt's Gram kernel on the H100).
    kx's record keeps the compile, with Triton's own figure for the shared memory, fails
    the launch against the target's limit, and counts as having captured the compile."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = RULES / "gram_too_big_for_shared_memory.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, RULES / "ground" / "gram_too_big_for_shared_memory.json")
    (k,) = [k for k in r.kernels if k.name == "gram_kernel"]
    assert k.status == "failed" and k.metadata is not None and "ttgir" in k.stages
    assert r.exit_status == 1 and any(d.line == 29 and "OutOfResources" in d.message for d in r.diagnostics)
    # the oracle: Triton's own compile of the same specialization for sm_90
    mod = _module_without_running(path, "gram_too_big", launches="\na = torch.randn")
    src = triton.compiler.ASTSource(
        fn=mod.gram_kernel,
        signature={**k.specialization.signature},
        constexprs={**k.specialization.constexprs},
    )
    direct = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 4})
    assert direct.metadata.shared == k.metadata.shared > 232448
    assert f"needs {direct.metadata.shared} of shared memory" in k.message
    # the record a real run writes (scripts/record_real_runs.py): the compile, status compiled
    real = {
        "compiles": [
            {
                "kernel": "gram_kernel",
                "constexprs": dict(k.specialization.constexprs),
                "signature": dict(k.specialization.signature),
                "num_warps": direct.metadata.num_warps,
                "num_stages": direct.metadata.num_stages,
                "maxnreg": None,
                "status": "compiled",
            }
        ]
    }
    c = compare(real, list(r.kernels))
    assert c.complete and not c.extra


def test_a_users_kernel_refused_inside_torch_compile_is_a_failed_kernel_of_the_file():
    """Inductor compiles a user's @triton.jit kernel with triton.compile; where Triton's
    front end refuses it (modded-nanogpt's softcapped entropy kernel on the H100: a
    loop-carried float changing type), the real run's record has a failed compile. kx's
    record has the kernel as failed with Triton's message, and the file's stop said."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = RULES / "compiled_user_kernel_refused.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, RULES / "ground" / "compiled_user_kernel_refused.json")
    (k,) = [k for k in r.kernels if k.name == "row_sum_kernel"]
    assert k.status == "failed" and "Loop-carried variable total" in k.message
    assert r.exit_status == 4 and any(d.kind == "runtime" and d.line == 30 for d in r.diagnostics)
    # the oracle: Triton's own front end refuses the same kernel, with the same words
    mod = _module_without_running(path, "user_kernel_refused", launches="\n@torch.compile")
    src = triton.compiler.ASTSource(
        fn=mod.row_sum_kernel,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 256},
    )
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32))
        refused = ""
    except triton.compiler.errors.CompilationError as e:
        refused = str(e.__cause__ or e)
    words = refused.split("AssertionError('", 1)[-1].split("!")[0]
    assert words.startswith("Loop-carried variable total") and words in k.message


def test_a_files_own_autotuner_catches_the_out_of_resources_a_launch_raises():
    """A real run's launch raises triton.OutOfResources where the kernel cannot load, and
    AutoGPTQ's own autotuner scores that config as infinitely slow. kx raised its own
    failure instead, which no `except triton.OutOfResources` catches: corpus 9's
    autogptq_qlinear_triton stopped at its first backward. Now the launch's failure is
    also Triton's exception, the file skips the config, and the one that fits is launched.
    Oracle: Triton's own compile of each config, against the target's shared memory."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = RULES / "custom_autotuner_skips_oversized.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, RULES / "ground" / "custom_autotuner_skips_oversized.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "compile")], [str(d) for d in r.diagnostics]
    assert "chosen {'BLOCK': 64, 'BLOCK_K': 32} skipped [{'BLOCK': 256, 'BLOCK_K': 256}]" in r.output
    records = {k.status: k for k in r.kernels if k.name == "tile_dot"}
    mod = _module_without_running(path, "custom_autotuner", launches="\nconfigs = [")
    shared = {}
    for status, k in records.items():
        names = mod.tile_dot.arg_names  # the launch's alignment facts, by parameter index
        attrs = {(names.index(n),): [list(a) for a in v] for n, v in k.specialization.attrs.items()}
        src = triton.compiler.ASTSource(
            fn=mod.tile_dot,
            signature={**k.specialization.signature},
            constexprs={**k.specialization.constexprs},
            attrs=attrs,
        )
        options = {"num_warps": k.metadata.num_warps, "num_stages": k.metadata.num_stages}
        shared[status] = triton.compile(
            src, target=GPUTarget("cuda", 90, 32), options=options
        ).metadata.shared
        assert shared[status] == k.metadata.shared
    assert shared["failed"] > 232448 >= shared["compiled"]
    assert records["compiled"].launch.count == 2  # timed once, then launched


def test_a_kernel_triton_refuses_inside_a_compiled_module_stops_the_file_as_a_real_run_does():
    """A triton_op whose kernel Triton's front end refuses, inside a module compiled with plain
    torch.compile (trifast's pair stack of corpus 10): dynamo's error suppression is off by
    default, so the real run raises at the model's call. kx suppresses Inductor failures of
    its own making (the frame runs eagerly, said as not captured); a refusal by Triton is not
    one, and reaches the file as on the GPU (before: the frame ran eagerly, the later launch
    was captured, and kx's own error text raised "weakly-referenced object no longer exists")."""
    import triton
    from triton.backends.compiler import GPUTarget

    path = RULES / "compiled_module_op_refused.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, RULES / "ground" / "compiled_module_op_refused.json")
    (k,) = [k for k in r.kernels if k.name == "gated_row_sum_kernel"]
    assert k.status == "failed" and "Loop-carried variable total" in k.message
    assert not any(d.kind == "not-captured" for d in r.diagnostics), [str(d) for d in r.diagnostics]
    (stop,) = [d for d in r.diagnostics if d.kind == "runtime"]
    assert stop.line == 53 and "CompilationError" in stop.message and r.exit_status == 4
    assert all(k.status == "not-launched" for k in r.kernels if k.name == "scale_kernel")
    # the oracle: Triton's own front end refuses the kernel
    mod = _module_without_running(path, "op_refused", launches="\n@triton_op")
    src = triton.compiler.ASTSource(
        fn=mod.gated_row_sum_kernel,
        signature={
            "x_ptr": "*fp32",
            "g_ptr": "*fp32",
            "out_ptr": "*fp32",
            "n_cols": "i32",
            "BLOCK": "constexpr",
        },
        constexprs={"BLOCK": 128},
    )
    try:
        triton.compile(src, target=GPUTarget("cuda", 90, 32))
        refused = False
    except triton.compiler.errors.CompilationError:
        refused = True
    assert refused


def test_the_live_jit_functions_pass_over_dead_weak_proxies():
    """Finding the file's @jit functions walks every live object; a dead weakref.proxy among
    them (Inductor leaves some) raised ReferenceError on isinstance(), which turned the
    compiler's own message into "weakly-referenced object no longer exists"."""
    import weakref

    import triton

    from kx_core.compile.capturing.jit_objects import jit_functions

    class Held:
        pass

    held = Held()
    proxies = [weakref.proxy(held)]
    del held

    @triton.jit
    def alive_kernel(x_ptr):
        pass

    found = jit_functions()
    assert alive_kernel in found and proxies


def test_inductors_own_assertion_about_a_graph_raises_as_in_a_real_run(tmp_path):
    """torch 2.11's tiling analysis asserts on a fused node's sizes (tiling_utils.py:271):
    the H100's real run of corpus 11's DINO ViT raised `InductorError: AssertionError` from
    that line, while kx ran the frame eagerly on and compiled 262 kernels the GPU never did.
    An assertion Inductor makes about the graph it compiles is raised under capture as in a
    real run; one where Inductor times or runs code on the device, one in kx's own code, and
    one in the user's are not (those may be the capture's making). The oracle: Inductor's
    own function raising its own assertion on sizes that do not multiply out."""
    import inspect
    import traceback
    import types

    import sympy
    import torch
    from torch._inductor import tiling_utils
    from torch._inductor.exc import InductorError
    from torch._inductor.sizevars import SizeVarAllocator
    from torch._inductor.virtualized import V

    from kx_core.compile.capturing.languages.inductor_capture import _fails_in_a_real_run

    def wrapped(error):
        return InductorError(error, inspect.currentframe()).with_traceback(error.__traceback__)

    sizes = types.SimpleNamespace(sizes=([sympy.Integer(4), sympy.Integer(4)], []))
    node = types.SimpleNamespace(is_reduction=lambda: False, _body=sizes)
    with V.set_graph_handler(types.SimpleNamespace(sizevars=SizeVarAllocator())):
        try:
            tiling_utils.get_pw_red_splits(node, sympy.Integer(8), sympy.Integer(1))
            raise RuntimeError("Inductor's assertion did not fire")
        except AssertionError as e:
            own = e
    assert traceback.extract_tb(own.__traceback__)[-1].filename.endswith("_inductor/tiling_utils.py")
    assert _fails_in_a_real_run(wrapped(own))

    def raised_in(path):
        try:
            exec(compile("assert False, 'x'", str(path), "exec"), {})
        except AssertionError as e:
            return e

    inductor = Path(torch._inductor.__file__).parent
    device_side = raised_in(inductor / "runtime" / "triton_heuristics.py")
    engine_side = raised_in(ROOT / "kx_core" / "compile" / "capturing" / "capture.py")
    users = raised_in(tmp_path / "model.py")
    assert not any(_fails_in_a_real_run(wrapped(e)) for e in (device_side, engine_side, users))


def test_an_autotuned_sweep_records_what_compiling_every_config_in_process_records():
    """Configs whose specialization a child compiled before are not forked again (Triton's
    kernel cache would hit): the capture with children (jobs=2) records the same kernels,
    launches, sites and grids as the one compiling every config of every launch in the
    worker itself (jobs=1, no shortcut)."""
    path = RULES / "autotuned_shape_sweep.py"

    def recorded(jobs):
        r = compile_file(CompileRequest(str(path), target="cuda:90", jobs=jobs), use_cache=False)
        assert_as_real_run(r, RULES / "ground" / "autotuned_shape_sweep.json")  # the H100's run
        kernels = [
            {
                "name": k.name,
                "status": k.status,
                "config": k.config.to_json() if k.config else None,
                "launch": k.launch.to_json() if k.launch else None,
                "hash": k.metadata.hash if k.metadata else None,
            }
            for k in r.kernels
        ]
        return kernels, [d.to_json() for d in r.diagnostics], r.exit_status

    forked, in_process = recorded(2), recorded(1)
    assert forked == in_process
    kernels = forked[0]
    # three configs, two specializations (n % 16 == 0, and 1000), each compiled once
    assert len(kernels) == 6 and all(k["status"] == "compiled" for k in kernels)
    assert len({k["hash"] for k in kernels}) == 6
