"""ATen's own layout rules, where a meta tensor would not follow them by itself.

Capture tensors are meta tensors: their shapes and strides come from PyTorch's meta
kernels, which agree with the CPU and CUDA kernels almost everywhere. Where kx answers
an op itself (the `*_like` factories, whose meta path imports sympy on first use) or
where the meta path skips a check a real tensor makes (`as_strided` out of its
storage), these functions give what ATen gives a real tensor. Each is a transcription
of the C++ it names, checked against real CPU tensors by
tests/compile/test_tensor_semantics.py.

Plain integers in, plain integers out: no torch here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def non_overlapping_and_dense(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's compute_non_overlapping_and_dense: the elements tile one block of memory
    without gaps or overlaps, in some order of the dimensions."""
    dim = len(sizes)
    if any(size == 0 for size in sizes) or _is_contiguous(sizes, strides):
        return True  # TensorImpl: a contiguous (or empty) tensor is dense
    if dim == 1:
        return sizes[0] < 2 or strides[0] == 1
    # dimensions of size 0 or 1 go last; the others by stride
    perm = sorted(range(dim), key=lambda i: (sizes[i] < 2, strides[i] if sizes[i] >= 2 else 0))
    required = 1
    for i in perm:
        if sizes[i] < 2:
            return True
        if strides[i] != required:
            return False
        required *= sizes[i]
    return True


def _sort_dims(perm: list[int], should_swap: Callable[[int, int], int]) -> None:
    """ATen's insertion sort of dimensions (infer_dense_strides, TensorIterator's
    reorder_dimensions): `should_swap` may answer 0 (ambiguous), which stops the walk."""
    for i in range(1, len(perm)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break


def infer_dense_strides(sizes: Sequence[int], strides: Sequence[int]) -> list[int]:
    """ATen's infer_dense_strides (TensorUtils.cpp): dense strides that keep the order of
    the input's dimensions in memory (what empty_like gives a non-dense tensor)."""
    ndim = len(sizes)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0: int, dim1: int) -> int:
        stride0, stride1 = strides[dim0], strides[dim1]
        if stride0 == 0 or stride1 == 0:  # ambiguous: keep the contiguous order
            return 0
        if stride0 < stride1:
            return -1
        if stride0 > stride1:
            return 1
        return 1 if sizes[dim0] > sizes[dim1] else 0  # equal strides: the smaller dim first

    _sort_dims(perm, should_swap)
    out = [0] * ndim
    current = 1
    for idx in perm:
        out[idx] = current
        if sizes[idx] > 1:
            current *= sizes[idx]
    return out


def empty_like_strides(sizes: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The strides `torch.empty_like(x)` (memory_format=torch.preserve_format, also
    zeros_like, ones_like, full_like, rand_like, randn_like) gives a strided tensor."""
    if non_overlapping_and_dense(sizes, strides):
        return list(strides)
    return infer_dense_strides(sizes, strides)


def storage_bytes_needed(sizes: Sequence[int], strides: Sequence[int], offset: int, itemsize: int) -> int:
    """Bytes of storage a view reaches (ATen's computeStorageNbytes plus its offset);
    0 for a view with no elements (it reaches nothing)."""
    if any(s == 0 for s in sizes):
        return 0
    extent = 1 + sum((size - 1) * stride for size, stride in zip(sizes, strides))
    return (extent + offset) * itemsize


def as_strided_error(
    sizes: Sequence[int], strides: Sequence[int], offset: int, itemsize: int, storage_bytes: int
) -> str | None:
    """ATen's checkInBoundsForStorage message when `as_strided` reaches past the
    storage (a real tensor raises it; a meta tensor does not check), else None."""
    needed = storage_bytes_needed(sizes, strides, offset, itemsize)
    if needed == 0 or needed <= storage_bytes:
        return None
    return (
        f"setStorage: sizes {list(sizes)}, strides {list(strides)}, storage offset {offset}, and itemsize "
        f"{itemsize} requiring a storage size of {needed} are out of bounds for storage of size {storage_bytes}"
    )


def contiguous_strides(sizes: Sequence[int]) -> list[int]:
    """Row-major strides (a size-0 or size-1 dimension multiplies by 1)."""
    out, acc = [0] * len(sizes), 1
    for i in range(len(sizes) - 1, -1, -1):
        out[i] = acc
        acc *= max(sizes[i], 1)
    return out


def channels_last_strides(sizes: Sequence[int]) -> list[int]:
    """NHWC strides of a 4-d NCHW shape (c10's get_channels_last_strides_2d)."""
    n, c, h, w = sizes
    strides = [0, 1, 0, 0]
    strides[3] = max(c, 1)
    strides[2] = strides[3] * max(w, 1)
    strides[0] = strides[2] * max(h, 1)
    return strides


def _is_contiguous(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    if any(size == 0 for size in sizes):
        return True  # TensorImpl: an empty tensor is contiguous
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size == 0:
            return True
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _is_channels_last(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """c10's is_channels_last_strides_2d (the test is_contiguous(channels_last) makes)."""
    if len(sizes) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        size = sizes[d]
        if size != 1:
            if strides[d] != expected:
                return False
            expected *= size
    return True


def elementwise_output_strides(
    out_shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> list[int]:
    """The strides TensorIterator gives the output of an elementwise op whose inputs are
    `operands` (shape, strides; a Python number is a 0-d operand), as a CPU or CUDA
    kernel allocates it: its fast set-up when every input has the output's shape and is
    contiguous, channels-last, or dense with one set of strides; else the dimensions
    ordered by the inputs' strides (reorder_dimensions, broadcast dimensions ignored)."""
    ndim = len(out_shape)
    if ndim == 0:
        return []
    if operands and all(list(shape) == list(out_shape) for shape, _ in operands):
        if all(_is_contiguous(s, st) for s, st in operands):
            return contiguous_strides(out_shape)
        if all(_is_channels_last(s, st) for s, st in operands):
            return channels_last_strides(out_shape)
        if all(non_overlapping_and_dense(s, st) for s, st in operands):
            first = list(operands[-1][1])
            if all(list(st) == first for _, st in operands):
                return first
    aligned = []
    for shape, strides in operands:
        offset = ndim - len(shape)
        row = [0] * ndim
        for i, (size, stride) in enumerate(zip(shape, strides)):
            row[offset + i] = 0 if size == 1 and out_shape[offset + i] != 1 else stride
        aligned.append(row)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0: int, dim1: int) -> int:
        for row in aligned:
            stride0, stride1 = row[dim0], row[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            if out_shape[dim0] > out_shape[dim1]:
                return 1
        return 0

    _sort_dims(perm, should_swap)
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(out_shape)  # ATen allocates a plain contiguous output then
    out, acc = [0] * ndim, 1
    for dim in perm:
        out[dim] = acc
        acc *= out_shape[dim]
    return out


def internal_overlap(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """ATen's has_internal_overlap == YES: some dimension of more than one element has
    stride 0 (an expanded tensor), so two of its elements are one memory location."""
    if non_overlapping_and_dense(sizes, strides):
        return False
    return any(size > 1 and stride == 0 for size, stride in zip(sizes, strides))


def partial_overlap(a: tuple, b: tuple) -> bool:
    """ATen's get_overlap_status == PARTIAL for two dense views of one storage, each given
    as (sizes, strides, storage offset in bytes, numel, itemsize): their memory ranges
    intersect but are not the same range with the same strides."""
    a_sizes, a_strides, a_begin, a_numel, a_item = a
    b_sizes, b_strides, b_begin, b_numel, b_item = b
    if a_numel == 0 or b_numel == 0:
        return False
    if not (non_overlapping_and_dense(a_sizes, a_strides) and non_overlapping_and_dense(b_sizes, b_strides)):
        return False  # TooHard: ATen does not refuse
    a_end, b_end = a_begin + a_numel * a_item, b_begin + b_numel * b_item
    if a_begin == b_begin and a_end == b_end:
        return list(a_strides) != list(b_strides)
    return a_begin < b_end and b_begin < a_end
