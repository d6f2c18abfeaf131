"""The KernelBench-style evaluator on kx's task library: the seed's qualitative findings,
naive vs hardened verdicts, fast_p and fast_p@k."""

from __future__ import annotations

import statistics

import pytest

from kx_core.bench.kb_tasks import DISTS, TASK, TASKS
from kx_core.bench.kernelbench import (
    evaluate,
    evaluate_library,
    fast_p,
    fast_p_at_k,
    library,
    per_task_rates,
    static_check,
)


@pytest.fixture(scope="module")
def hardened():
    return {(r.task, r.candidate): r for r in evaluate_library("hardened")}


@pytest.fixture(scope="module")
def naive():
    return {(r.task, r.candidate): r for r in evaluate_library("naive")}


def test_the_library_and_every_status(hardened):
    cands = library()
    assert len(TASKS) >= 9 and len(cands) >= 28 and {c.task for c in cands} == set(TASK)
    assert all(c.intent for c in cands)
    assert {r.status for r in hardened.values()} == {
        "compile_error",
        "runtime_error",
        "wrong",
        "rejected",
        "correct",
    }


def test_torch_candidates_run_on_cpu(hardened):
    for key in (("L1_softmax", "torch_softmax"), ("L1_layernorm", "torch_layer_norm")):
        assert hardened[key].correct and all(
            v.split("/")[0] == v.split("/")[1] for v in hardened[key].per_dist.values()
        )


def _failing(r):
    return {d for d, v in r.per_dist.items() if not v.startswith(v.split("/")[1] + "/")}


def test_the_seeds_findings(hardened):
    # an unstable softmax fails only where values reach the hundreds
    assert _failing(hardened[("L1_softmax", "no_max")]) == {"lognormal", "offset"}
    # a one-pass variance fails only on a large common offset
    assert _failing(hardened[("L1_layernorm", "one_pass_var")]) == {"offset"}
    # a layernorm without eps passes all five distributions
    no_eps = hardened[("L1_layernorm", "no_eps")]
    assert no_eps.correct and set(no_eps.per_dist) == set(DISTS) and not _failing(no_eps)
    # the sigmoid GELU is off by more than the tolerance only where inputs reach -2
    assert _failing(hardened[("L1_gelu", "sigmoid_approx")]) == {"normal", "laplace"}


def test_what_only_the_hardened_evaluator_catches(naive, hardened):
    for key, status in (
        (("L1_softmax", "cached"), "rejected"),  # a cache of answers, fine on one input
        (("L3_mlp_block", "peek_at_reference"), "rejected"),  # reads the evaluator's reference
        (("L1_softmax", "no_max"), "wrong"),  # overflow outside standard-normal inputs
        (("L2_scale_bias_relu", "scale_after_relu"), "wrong"),  # right only while every scale > 0
        (("L1_rmsnorm", "forgot_weight"), "wrong"),  # right only with the default all-ones weight
    ):
        assert naive[key].status == "correct" and hardened[key].status == status, key
    assert not [k for k, r in hardened.items() if r.correct and not naive[k].correct]


def test_fast_p_and_at_k(hardened):
    results = list(hardened.values())
    curve = [fast_p(results, p) for p in (0.0, 0.5, 1.0, 2.0, 5.0, 1000.0)]
    assert curve == sorted(curve, reverse=True) and curve[-1] == 0.0
    correct_rate = statistics.fmean(
        sum(r.correct for r in results if r.task == t.name) / sum(r.task == t.name for r in results)
        for t in TASKS
    )
    assert curve[0] == pytest.approx(correct_rate)
    q = per_task_rates(results, 0.0)
    assert fast_p_at_k(q, 1) == pytest.approx(statistics.fmean(q))
    at_k = [fast_p_at_k(q, k) for k in (1, 2, 5, 10, 100)]
    assert at_k == sorted(at_k) and at_k[-1] <= sum(x > 0 for x in q) / len(q) + 1e-12


def test_static_check():
    assert static_check("import numpy as np\ndef forward(x, p, a):\n    return x") is None
    assert "only numpy, math and torch" in static_check("import subprocess\n")
    assert "global" in static_check("n = 0\ndef forward(x, p, a):\n    global n\n    return x")
    assert "mutable default" in static_check("def forward(x, p, a, memo={}):\n    return x")
    assert "attribute" in static_check("def forward(x, p, a):\n    forward.last = x\n    return x")
    assert "reaches for" in static_check("def forward(x, p, a):\n    return reference(x, p)")
    assert static_check('"""Faster than the reference."""\ndef forward(x, p, a):\n    return x') is None
    r = evaluate(TASK["L1_gelu"], "def forward(x, p, a):\n    return x[", "hardened", "broken")
    assert r.status == "compile_error" and "SyntaxError" in r.msg


def test_kernelbench_command():
    import json

    from kx_testing import run_kx

    p = run_kx("kernelbench", "--task", "L1_layernorm", "--json")
    doc = json.loads(p.stdout)
    hardened = {r["candidate"]: r["status"] for r in doc["hardened"]}
    assert hardened == {
        "gamma_shape_bug": "runtime_error",
        "no_eps": "correct",
        "one_pass_var": "wrong",
        "torch_layer_norm": "correct",
        "two_pass": "correct",
    }
    assert {r["candidate"]: r["status"] for r in doc["naive"]}["one_pass_var"] == "correct"
