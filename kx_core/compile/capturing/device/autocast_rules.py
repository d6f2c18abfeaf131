"""What `torch.autocast("cuda")` does to an op on capture tensors, decided by PyTorch's
own autocast: the op is run on GPU fakes of its arguments (FakeTensors on cuda:0, which
carry the AutocastCUDA dispatch key that meta tensors lack) with the file's autocast
state, and the dtype it gives is the dtype the capture's op must give. Without this a
`torch.autocast("cuda", torch.float16)` region computed in fp32 under capture, and its
kernels were compiled for fp32 pointers (sparse_autoencoder's training loop).
"""

from __future__ import annotations

from typing import Any

_MODE: list[Any] = []  # one FakeTensorMode for the capture's process


def autocast_on() -> bool:
    """The file is inside a `torch.autocast("cuda")` region."""
    import torch

    try:
        return torch.is_autocast_enabled("cuda")
    except TypeError:  # torch < 2.4 takes no device type
        return torch.is_autocast_enabled()


def cast_dtype(func: Any, args: tuple, kwargs: dict) -> Any:
    """The floating dtype autocast gives `func(*args, **kwargs)`'s first floating output,
    or None (no floating output, or the op fails on fakes: the capture's answer stands)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    from torch.utils._pytree import tree_flatten, tree_map

    from kx_core.compile.capturing.device.gpu_fakes import gpu_fakes_of_capture_tensors

    if not _MODE:
        _MODE.append(FakeTensorMode(allow_non_fake_inputs=True))
    mode = _MODE[0]

    def fake(t: Any) -> Any:
        if isinstance(t, torch.Tensor) and t.is_meta:
            with gpu_fakes_of_capture_tensors():
                return mode.from_tensor(t)
        return t

    try:
        fake_args, fake_kwargs = tree_map(fake, (args, kwargs))
        with mode:
            out = func(*fake_args, **fake_kwargs)
    except Exception:  # noqa: BLE001 - an op fakes cannot run: no autocast answer
        return None
    for t in tree_flatten(out)[0]:
        if isinstance(t, FakeTensor) and t.dtype.is_floating_point:
            return t.dtype
    return None
