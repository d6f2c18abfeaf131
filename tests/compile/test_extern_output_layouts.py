"""Inductor's wrapper checks each extern kernel's output against the layout its fake on
cuda:0 had (`assert_size_stride`). Capture tensors are meta tensors, and a few ATen meta
functions pick a layout by device (convolution_backward's weight gradient: cuDNN's memory
format on the GPU): corpus 8's qt_int8_vit_train (timm's ViT, torch 2.11) stopped at
`loss.backward()` with "expected size 3==3, stride 1==256 at dim=1". Under capture a dense
output whose dimensions are only ordered differently takes the layout the fake had; any
other mismatch is still refused by PyTorch's own check."""

from __future__ import annotations

import pytest
import torch

from kx_core.compile.capturing.languages.inductor_capture import _gpu_layout_of_extern_outputs

CHECK = torch._C._dynamo.guards.assert_size_stride


def test_a_dense_meta_output_takes_the_layout_the_gpu_fake_had():
    grad_weight = torch.empty_strided((384, 3, 16, 16), (768, 1, 48, 3), device="meta")  # channels_last
    with pytest.raises(AssertionError, match="stride 1==256"):
        CHECK(grad_weight, (384, 3, 16, 16), (768, 256, 16, 1))  # PyTorch's own check refuses it
    _gpu_layout_of_extern_outputs(CHECK)(grad_weight, (384, 3, 16, 16), (768, 256, 16, 1))
    assert grad_weight.stride() == (768, 256, 16, 1) and grad_weight.shape == (384, 3, 16, 16)


def test_other_mismatches_are_still_refused():
    checked = _gpu_layout_of_extern_outputs(CHECK)
    wrong_size = torch.empty((384, 3, 16, 16), device="meta")
    with pytest.raises(AssertionError):
        checked(wrong_size, (384, 3, 16, 8), (384, 128, 8, 1))
    view = torch.empty((2, 384, 3, 16, 16), device="meta")[1].permute(
        0, 2, 3, 1
    )  # a view into a larger buffer
    with pytest.raises(AssertionError):
        checked(view, tuple(view.shape), (768, 48, 3, 1))
    real = torch.empty_strided((4, 3, 2, 2), (12, 1, 6, 3))  # a real tensor's layout is its own
    with pytest.raises(AssertionError):
        checked(real, (4, 3, 2, 2), (12, 4, 2, 1))
