"""On a GPU: the Triton candidates of the KernelBench library, judged by the hardened
evaluator and timed against the torch reference on the device. Skipped without one."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def test_triton_candidates():
    from kx_core.bench.kernelbench import evaluate_library, library, needs_gpu

    cands = [c for c in library() if needs_gpu(c.src)]
    assert len(cands) >= 3
    results = {(r.task, r.candidate): r for r in evaluate_library("hardened", cands)}
    assert results[("L1_softmax", "triton_rowwise")].correct
    assert results[("L1_gelu", "triton_tanh")].correct
    bad = results[("L1_softmax", "triton_no_max")]
    failing = {d for d, v in bad.per_dist.items() if not v.startswith(v.split("/")[1] + "/")}
    assert bad.status == "wrong" and failing == {"lognormal", "offset"}
    assert all(r.t_ref and r.t_cand for r in results.values() if r.correct)
