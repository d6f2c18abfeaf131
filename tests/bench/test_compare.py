"""The structured comparator catches what a first-element fp32 comparison hides."""

from __future__ import annotations

import torch

from kx_core.bench.compare import compare_structured, default_tolerances, widened


def test_identical_structures_pass():
    torch.manual_seed(0)
    a, b = torch.randn(4, 8).to(torch.bfloat16), torch.randn(4, 8)
    assert compare_structured((a, b), (a.clone(), b.clone())) == []
    assert compare_structured({"y": a, "n": 3}, {"y": a.clone(), "n": 3}) == []


def test_a_wrong_second_output_is_named():
    torch.manual_seed(0)
    a, b = torch.randn(4, 8).to(torch.bfloat16), torch.randn(4, 8)
    got = compare_structured((a, b), (a.clone(), b + 0.5))
    assert len(got) == 1 and got[0].startswith("output[1]: value mismatch dtype=torch.float32")
    # what a first-element, fp32, atol=1e-2 comparison would have said: fine
    assert torch.allclose(a.float(), a.clone().float(), atol=1e-2, rtol=1e-2)


def test_bf16_truncation_is_one_ulp_and_fails():
    """In [1, 2) truncating instead of rounding to nearest-even is one bf16 ulp (2^-7 =
    7.8e-3): under an fp32 atol of 1e-2, caught at half an ulp in bf16."""
    torch.manual_seed(0)
    x = torch.rand(64, 64) + 1.0
    rne = x.to(torch.bfloat16)
    truncated = (x.view(torch.int32) & -65536).view(torch.float32).to(torch.bfloat16)
    assert (rne != truncated).sum() > 0
    assert torch.allclose(rne.float(), truncated.float(), atol=1e-2, rtol=1e-2)
    got = compare_structured(rne, truncated)
    assert len(got) == 1 and "dtype=torch.bfloat16" in got[0]
    assert compare_structured(rne, truncated, widened(default_tolerances(), rtol=2**-7)) == []


def test_structure_dtype_shape_and_exact_integers():
    a, b = torch.randn(3, 4).to(torch.bfloat16), torch.randn(3, 4)
    assert "dtype mismatch" in compare_structured(a, a.float())[0]
    assert "shape mismatch" in compare_structured(b, b.t().contiguous())[0]
    assert "length mismatch" in compare_structured((a, b), (a,))[0]
    assert "key mismatch" in compare_structured({"y": a}, {"z": a})[0]
    assert "reference is list" in compare_structured([a], (a,))[0]
    i = torch.arange(10)
    assert compare_structured(i, i + (i == 3).long()) == [
        "output: 1 element(s) differ in exact dtype torch.int64"
    ]
    scalar = compare_structured(2.0, torch.tensor([2.0, 2.0]))
    assert len(scalar) == 1 and scalar[0].startswith("output: reference is float")
    nested = compare_structured({"out": [a, (b, 1)]}, {"out": [a, (b, 2)]})
    assert nested == ["output['out'][1][1]: scalar mismatch ref=1 kernel=2"]
