"""Triton's own rules for every launch (issue 50, item 2): what the autotuner benchmarks
and how a launch specialises are Triton's decisions, taken from Triton's own code under
capture, here checked against that code run directly and against the H200's real runs of
the same files (fixtures/kernels/launch_rules/ground). Files in the styles of the libraries
that use each rule are in fixtures/kernels/launch_rules."""

from __future__ import annotations

import importlib.util
import json
import sys

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs.real_runs import compare
from kx_testing import ROOT

RULES = ROOT / "fixtures" / "kernels" / "launch_rules"


def _module_without_running(path, name):
    """The fixture's module with its kernels and pruner, its launches left out."""
    text = path.read_text().split("\nfor n, k in", 1)[0]
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
