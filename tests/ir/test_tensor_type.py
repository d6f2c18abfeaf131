"""The one parser of tensor types: shapes, elements, pointers, encodings (inline ones too),
on lines written as Triton's TTIR and TTGIR print them."""

from __future__ import annotations

from kx_core.ir.tensor_type import first_tensor, tensor_types


def test_tensor_types_of_ttgir_lines():
    line = (
        "%5 = ttg.convert_layout %4 : tensor<64x32x!tt.ptr<f16>, #blocked> -> "
        "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>"
    )
    a, b = tensor_types(line)
    assert (a.shape, a.element, a.pointer, a.encoding) == ((64, 32), "f16", True, "#blocked")
    assert (b.shape, b.element, b.pointer) == ((128, 64), "f16", False)
    assert b.encoding == "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>"
    assert (a.elements, a.element_bytes, b.element_bytes) == (2048, 2, 2)


def test_element_sizes_and_ttir_types():
    assert first_tensor("tensor<1024xf32>").encoding is None
    assert first_tensor("tensor<256xf8E4M3FN, #blocked>").element_bytes == 1
    assert first_tensor("tensor<64xi1>").element_bytes == 1
    assert first_tensor("tensor<16x16xindex>").element_bytes is None
    assert first_tensor("!tt.ptr<tensor<64x64xbf16>>").shape == (64, 64)  # a block pointer's tensor
    assert first_tensor("tensor<8x!tt.ptr<f32, 1>>").element == "f32"  # with an address space
    assert first_tensor("i32") is None
