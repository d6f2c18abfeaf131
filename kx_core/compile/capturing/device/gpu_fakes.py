"""Fakes of capture tensors are GPU fakes: what a compiler that traces the file (dynamo and
Inductor, Helion, PyTorch's autocast) makes of a capture tensor is on cuda:0, as it would
make of the GPU tensor the capture tensor stands for, and it runs without the capture's
torch function mode (which makes GPU factory calls meta). The stand-in device's part of
every such compiler's capture (inductor_capture installs `patch_fake_tensor`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def without_torch_function_modes() -> Iterator[None]:
    """No torch function mode on the stack while inside (the capture's turns a GPU
    factory call into a meta tensor: a compiler's fakes of the GPU are made on the GPU)."""
    import torch

    modes = []
    while torch._C._len_torch_function_stack() > 0:
        modes.append(torch._C._pop_torch_function_stack())
    try:
        yield
    finally:
        for mode in reversed(modes):
            torch._C._push_on_torch_function_stack(mode)


class _Converting(threading.local):
    depth = 0


_CONVERTING = _Converting()


@contextlib.contextmanager
def gpu_fakes_of_capture_tensors() -> Iterator[None]:
    """While inside, a fake made of a capture tensor (a meta tensor) is on cuda:0, however
    it is made (`patch_fake_tensor`): FakeTensorConverter's conversion, or a
    compiler's own `torch.empty_strided(..., device=t.device)` under its fake mode."""
    _CONVERTING.depth += 1
    try:
        yield
    finally:
        _CONVERTING.depth -= 1


# What a placeholder use says of a host tensor traced as a GPU one (capture.py words it).
HOST_TENSOR_TRACED = "a tensor a real run has on the CPU"


def host_tensor_traced_on_the_gpu(t: Any) -> None:
    """Say it where a compiler traces a capture tensor that a real run has on the CPU (made
    with no device, and what ops on such tensors only make: known_values.is_host). Every
    capture tensor is meta, and its fake is made on cuda:0; PyTorch's rule keeps a tensor
    on the device it was made on, so a real run's trace has this one on the CPU, and
    Inductor's kernels around it differ (a CPU kernel where kx generates a Triton one, a
    scalar read on the host where kx loads through a pointer: dion's GPT computes its
    rotary table from a host `inv_freq`). kx cannot run a CPU kernel on a capture tensor,
    so it traces on and marks the kernels after this as following a guess."""
    from kx_core.compile.capturing.device import known_values, placeholders

    if getattr(t, "is_meta", False) and known_values.is_host(t):
        shape = "x".join(str(n) for n in t.shape) or "0-dim"
        what = f"{HOST_TENSOR_TRACED} ({str(t.dtype).removeprefix('torch.')} {shape})"
        placeholders.LEDGER.use(what, "cuda:0")


def patch_fake_tensor(module: Any) -> None:
    """A capture tensor is a meta tensor standing for a GPU tensor: the fake that
    torch.compile makes of it (FakeTensorConverter.from_real_tensor) is on cuda:0, so
    dynamo and Inductor trace and generate what they would for the GPU tensor."""
    import torch

    converter = module.FakeTensorConverter
    fake_tensor = module.FakeTensor
    from_real_tensor = converter.from_real_tensor
    new = fake_tensor.__new__
    gpu = torch.device("cuda", 0)

    def converting(self: Any, fake_mode: Any, t: Any, *args: Any, **kwargs: Any) -> Any:
        host_tensor_traced_on_the_gpu(t)
        with gpu_fakes_of_capture_tensors():
            return from_real_tensor(self, fake_mode, t, *args, **kwargs)

    def meta(value: Any) -> bool:
        return isinstance(value, torch.device) and value.type == "meta"

    def fake_new(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if _CONVERTING.depth:
            args = tuple(gpu if meta(a) else a for a in args)
            kwargs = {k: gpu if meta(v) else v for k, v in kwargs.items()}
        return new(cls, *args, **kwargs)

    converter.from_real_tensor = converting
    fake_tensor.__new__ = staticmethod(fake_new)
    # meta_utils makes the fake of a view from its base's fake, then sets its device to the
    # real view's (`r.fake_device = t.device`): a view of a capture tensor (a buffer made as
    # `torch.tril(...).view(1, 1, n, n)`) is on cuda:0 as its base is
    device_property = fake_tensor.__dict__.get("fake_device")
    if not isinstance(device_property, property):
        # torch <= 2.12 keeps `fake_device` as a plain instance attribute (2.13 made it a
        # property): a property over the instance's own dict entry behaves the same
        def get_plain(self: Any) -> Any:
            return self.__dict__["fake_device"]

        def set_plain(self: Any, device: Any) -> None:
            self.__dict__["fake_device"] = device

        device_property = property(get_plain, set_plain)

    def set_fake_device(self: Any, device: Any) -> None:
        device_property.fset(self, gpu if _CONVERTING.depth and meta(device) else device)

    fake_tensor.fake_device = device_property.setter(set_fake_device)
    # FakeTensorMode keeps `torch.tensor(..., device="cuda")` and device guards off the CUDA
    # runtime only where it sees no GPU; the capture device says it has one
    module.FakeTensorMode.avoid_device_init = property(lambda self: True)
    if hasattr(module, "init_gpu_context"):
        # torch 2.11 makes a real CUDA tensor before its first GPU fake (so autograd
        # finds a context): capture has no GPU to make one on, and wants none
        module.init_gpu_context = lambda device: None
