"""Import helpers for the public-file corpus drivers (kx's own code, no upstream code).

Some upstream packages run heavy or absent dependencies from their top-level
`__init__.py` (transformers models, bitsandbytes, unsloth_zoo). A user on a
training box has those installed; the corpus must run with torch + triton only.
These helpers let a driver import the *kernel* modules exactly as upstream wrote them:

- `bare_package(name, path)` registers a package without executing its `__init__.py`,
  so `import pkg.sub.module` loads only `module` and what it imports itself.
- `stub_module(name, **attrs)` puts a minimal stand-in for an absent dependency in
  `sys.modules` (with a proper `__spec__`, so `importlib.util.find_spec` still works).

Upstream sources are found on `sys.path` (the manifest's "pythonpath" puts the
`.realfiles/...` folders there).
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import sys
import types


def find_on_path(rel: str) -> str:
    """The first `<sys.path entry>/<rel>` folder that exists."""
    for entry in sys.path:
        cand = os.path.join(entry or os.getcwd(), rel)
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    raise ImportError(
        f"{rel!r} is not under any sys.path entry; set PYTHONPATH as benchmarks/real_files/manifest.json says"
    )


def bare_package(name: str, path: str) -> types.ModuleType:
    """Register package `name` at folder `path` without running its __init__.py."""
    if name in sys.modules:
        return sys.modules[name]
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__package__ = name
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = [path]
    mod.__spec__ = spec
    sys.modules[name] = mod
    parent, _, child = name.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, mod)
    return mod


def stub_module(name: str, **attrs) -> types.ModuleType:
    """A stand-in module (and stand-in parents) for a dependency that is not installed."""
    parent, _, child = name.rpartition(".")
    if parent and parent not in sys.modules:
        stub_module(parent)
    mod = sys.modules.get(name)
    if mod is None:
        mod = types.ModuleType(name)
        mod.__path__ = []  # may have stubbed submodules
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        mod.__kx_stub__ = True
        sys.modules[name] = mod
        if parent:
            setattr(sys.modules[parent], child, mod)
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def _noop(*args, **kwargs):
    return None


def _identity_decorator(fn=None, **kwargs):
    if fn is None:
        return lambda f: f
    return fn


class _AnyAttr:
    """`lib.cdequantize_blockwise_fp32` and friends: present, never called here."""

    def __getattr__(self, name):
        return None


def unsloth_kernels() -> None:
    """Make `import unsloth.kernels.<op>` work with torch + triton only.

    Skips unsloth/__init__.py and unsloth/kernels/__init__.py (they patch transformers
    and import every kernel), and stubs the names the kernel modules import from
    unsloth_zoo, bitsandbytes and transformers at module level. The Triton code, the
    launch wrappers and unsloth/device_type.py run unchanged.
    """
    import torch
    from packaging.version import Version

    kernels = find_on_path(os.path.join("unsloth", "kernels"))
    bare_package("unsloth", os.path.dirname(kernels))
    bare_package("unsloth.kernels", kernels)

    stub_module("unsloth_zoo.utils", Version=Version)
    stub_module("unsloth_zoo.log", logger=logging.getLogger("unsloth_zoo"))
    stub_module("unsloth_zoo.temporary_patches.common", torch_compile=_identity_decorator)
    stub_module("unsloth_zoo.loss_utils", patch_loss_functions=_noop, post_patch_loss_function=_noop)
    stub_module("unsloth_zoo.patching_utils", patch_layernorm=_noop)

    stub_module("bitsandbytes", __version__="0.45.5")
    stub_module("bitsandbytes.functional", get_ptr=_noop, lib=_AnyAttr())

    class LlamaRMSNorm(torch.nn.Module):  # what unsloth subclasses at import time
        def __init__(self, hidden_size, eps=1e-6):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(hidden_size))
            self.variance_epsilon = eps

    stub_module(
        "transformers.models.llama.modeling_llama",
        LlamaRMSNorm=LlamaRMSNorm,
        logger=logging.getLogger("transformers"),
    )


def fla_package() -> None:
    """Make `from fla.ops.<op> import ...` work without fla/__init__.py, which imports
    every layer and model (transformers). fla.ops / fla.modules / fla.utils run as is."""
    bare_package("fla", find_on_path("fla"))


class _VllmCudaPlatform:
    """What vLLM's `current_platform` answers on an NVIDIA GPU, read from torch.cuda.

    vllm/platforms/__init__.py picks the platform through pynvml and vllm/platforms/cuda.py
    imports vllm._C (the compiled extension); neither is here. The kernel modules only ask
    these questions of it.
    """

    device_name = device_type = "cuda"
    dispatch_key = "CUDA"
    ray_device_key = "GPU"
    simple_compile_backend = "inductor"

    def is_cuda(self):
        return True

    is_cuda_alike = is_cuda

    def is_rocm(self):
        return False

    is_xpu = is_cpu = is_tpu = is_out_of_tree = is_rocm

    def fp8_dtype(self):
        import torch

        return torch.float8_e4m3fn

    def get_device_capability(self, device_id=0):
        import torch

        return _DeviceCapability(*torch.cuda.get_device_capability(device_id))

    def has_device_capability(self, capability, device_id=0):
        cap = self.get_device_capability(device_id)
        return (
            tuple(cap) >= tuple(capability) if isinstance(capability, tuple) else cap.to_int() >= capability
        )

    def is_device_capability(self, capability, device_id=0):
        cap = self.get_device_capability(device_id)
        return (
            tuple(cap) == tuple(capability) if isinstance(capability, tuple) else cap.to_int() == capability
        )

    def is_device_capability_family(self, capability, device_id=0):
        return self.get_device_capability(device_id).to_int() // 10 == capability // 10

    def get_device_name(self, device_id=0):
        import torch

        return torch.cuda.get_device_name(device_id)

    def supports_fp8(self):
        return self.has_device_capability(89)

    def is_fp8_fnuz(self):
        return False

    def current_device(self):
        import torch

        return torch.cuda.current_device()

    def num_compute_units(self, device_id=0):
        import torch

        return torch.cuda.get_device_properties(device_id).multi_processor_count


class _DeviceCapability(tuple):
    def __new__(cls, major, minor):
        return super().__new__(cls, (major, minor))

    major = property(lambda self: self[0])
    minor = property(lambda self: self[1])

    def to_int(self):
        return self[0] * 10 + self[1]


def _max_shared_memory_per_block(gpu=0):
    """vllm._custom_ops.get_max_shared_memory_per_block_device_attribute, from torch.cuda."""
    import torch

    return torch.cuda.get_device_properties(gpu).shared_memory_per_block_optin


def vllm_package(custom_ops: dict | None = None) -> None:
    """Make `import vllm.<...>.<kernel module>` work with torch + triton only.

    Skips vllm/__init__.py (engine, env overrides), stubs vllm.platforms with a CUDA
    platform answered from torch.cuda, and vllm._custom_ops (the compiled extension) with
    the names in `custom_ops` (a driver's torch stand-ins for the C++ ops it reaches).
    vllm.envs, vllm.logger, vllm.triton_utils, vllm.utils.torch_utils
    (direct_register_custom_op) and the kernel modules run unchanged. einops: see
    einops_standin().
    """
    import importlib.util
    import re

    root = find_on_path("vllm")
    bare_package("vllm", root)
    if importlib.util.find_spec("regex") is None:  # vllm.utils uses `regex` as a drop-in `re`
        sys.modules["regex"] = re
    # vllm/model_executor/__init__.py imports the weight-parameter classes (distributed);
    # v1.* are the parents of a stub below
    for sub in ("model_executor", "v1", "v1.attention", "v1.attention.backends"):
        bare_package(f"vllm.{sub}", os.path.join(root, *sub.split(".")))
    stub_module("vllm.platforms", current_platform=_VllmCudaPlatform())
    # asked by the chunked-prefill decode path; on an NVIDIA GPU the answer is no
    stub_module("vllm.platforms.rocm", use_rocm_custom_paged_attention=lambda *a, **k: False)
    ops = {"get_max_shared_memory_per_block_device_attribute": _max_shared_memory_per_block}
    stub_module("vllm._custom_ops", **ops, **(custom_ops or {}))
    if importlib.util.find_spec("psutil") is None:  # vllm.utils.mem_utils imports it (CPU memory)
        stub_module("psutil")
    # vllm.logger's *_once(scope=...) asks whether this is the first rank: one process is
    stub_module(
        "vllm.distributed.parallel_state", is_global_first_rank=lambda: True, is_local_first_rank=lambda: True
    )
    # constants the mamba / attention kernels import from the (heavy) backend utils
    stub_module("vllm.v1.attention.backends.utils", PAD_SLOT_ID=-1, NULL_BLOCK_ID=0)
    einops_standin()  # the mamba SSD wrapper reshapes states with einops


def _moe_align_block_size(
    topk_ids, num_experts, block_size, sorted_ids, expert_ids, num_tokens_post_pad, expert_map=None
):
    """Torch stand-in for vLLM's C++ moe_align_block_size (vllm._moe_C): group the flat
    (token, k) slots by expert, each expert's run padded to a multiple of block_size."""
    import torch

    flat = topk_ids.flatten().long()
    counts = torch.nn.functional.one_hot(flat, num_experts).sum(0)
    padded = (counts + block_size - 1) // block_size * block_size
    pad_end = padded.cumsum(0)
    pad_start = pad_end - padded
    order = torch.sort(flat, stable=True).indices
    experts = flat[order]
    run_start = counts.cumsum(0) - counts
    pos = pad_start[experts] + torch.arange(flat.numel(), device=flat.device) - run_start[experts]
    sorted_ids.fill_(flat.numel())
    sorted_ids.scatter_(0, pos, order.to(sorted_ids.dtype))
    blocks = torch.arange(expert_ids.numel(), device=flat.device) * block_size
    expert_ids.copy_(torch.searchsorted(pad_end, blocks, right=True).clamp_(max=num_experts - 1))
    num_tokens_post_pad.copy_(pad_end[-1:])


def _moe_sum(input, output):
    """Torch stand-in for vLLM's C++ moe_sum: reduce the top-k axis."""
    output.copy_(input.sum(dim=1))


def _register_vllm_c_activations() -> None:
    """torch.ops._C.silu_and_mul / gelu_and_mul as torch custom ops (vLLM's C++ kernels
    are not built here); the MoE path calls them between its two Triton GEMMs."""
    import torch
    import torch.nn.functional as F

    if hasattr(torch.ops._C, "silu_and_mul"):
        return

    schema = "(Tensor(a!) out, Tensor input) -> ()"

    @torch.library.custom_op("_C::silu_and_mul", mutates_args=("out",), schema=schema)
    def silu_and_mul(out, input):
        d = input.shape[-1] // 2
        out.copy_(F.silu(input[..., :d]) * input[..., d:])

    @torch.library.custom_op("_C::gelu_and_mul", mutates_args=("out",), schema=schema)
    def gelu_and_mul(out, input):
        d = input.shape[-1] // 2
        out.copy_(F.gelu(input[..., :d]) * input[..., d:])


def vllm_fused_moe() -> None:
    """Make `import vllm.model_executor.layers.fused_moe.fused_moe` work with torch + triton.

    On top of vllm_package(): the fused_moe package registered bare (its __init__ builds
    the whole FusedMoE layer stack), and stand-ins for the three modules fused_moe.py
    imports only for the quantized / modular paths: config (the unquantized config and
    the tuning-file dtype name), modular_kernel (the activation's output width) and utils
    (no input quantization for bf16). C++ ops: moe_align_block_size, moe_sum and the
    gated activations as torch code. moe_align_block_size.py, activation.py, the
    custom-op registration, the H200 tuning files and the Triton kernels run unchanged.
    """
    import types

    import torch

    vllm_package(custom_ops={"moe_align_block_size": _moe_align_block_size, "moe_sum": _moe_sum})
    _register_vllm_c_activations()
    root = find_on_path(os.path.join("vllm", "model_executor"))
    bare_package("vllm.model_executor.layers", os.path.join(root, "layers"))
    pkg = bare_package("vllm.model_executor.layers.fused_moe", os.path.join(root, "layers", "fused_moe"))
    pkg.get_config = lambda: None  # no override_config() in effect

    unquantized = types.SimpleNamespace(
        use_fp8_w8a8=False,
        use_int8_w8a8=False,
        use_int8_w8a16=False,
        use_int4_w4a16=False,
        ocp_mx_scheme=None,
        per_act_token_quant=False,
        block_shape=None,
        w1_scale=None,
        w2_scale=None,
        w1_zp=None,
        w2_zp=None,
        a1_scale=None,
        a2_scale=None,
        w1_bias=None,
        w2_bias=None,
    )

    def config_dtype_str(
        dtype,
        use_fp8_w8a8=False,
        use_fp8_w8a16=False,
        use_int8_w8a16=False,
        use_int4_w4a16=False,
        ocp_mx_scheme=None,
    ):
        for flag, name in (
            (use_fp8_w8a8, "fp8_w8a8"),
            (use_fp8_w8a16, "fp8_w8a16"),
            (use_int8_w8a16, "int8_w8a16"),
            (use_int4_w4a16, "int4_w4a16"),
        ):
            if flag:
                return name
        return "float32" if dtype == torch.float32 else None

    stub_module(
        "vllm.model_executor.layers.fused_moe.config",
        FUSED_MOE_UNQUANTIZED_CONFIG=unquantized,
        FusedMoEQuantConfig=types.SimpleNamespace,
        _get_config_dtype_str=config_dtype_str,
    )

    class FusedMoEExpertsModular:
        @staticmethod
        def adjust_N_for_activation(N, activation):
            return N if not activation.is_gated else N // 2

    stub_module(
        "vllm.model_executor.layers.fused_moe.modular_kernel", FusedMoEExpertsModular=FusedMoEExpertsModular
    )

    def moe_kernel_quantize_input(A, A_scale, quant_dtype, per_act_token_quant, block_shape=None, **kwargs):
        if quant_dtype is not None:
            raise NotImplementedError("the corpus stand-in only runs unquantized MoE")
        return A, A_scale

    from vllm.utils.torch_utils import is_torch_equal_or_newer

    stub_module(
        "vllm.model_executor.layers.fused_moe.utils",
        moe_kernel_quantize_input=moe_kernel_quantize_input,
        disable_inplace=lambda: is_torch_equal_or_newer("2.9"),
    )


def _einops_groups(side: str) -> list[list[str]]:
    groups, cur = [], None
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            cur = []
        elif tok == ")":
            groups.append(cur)
            cur = None
        elif cur is not None:
            cur.append(tok)
        else:
            groups.append([tok])
    return groups


def _einops_rearrange(x, pattern: str, **sizes):
    """einops.rearrange / repeat for the patterns kernel wrappers use: named axes, `...`,
    `(a b)` groups split or merged, `1`, and (repeat) new axes sized by keyword."""
    import math

    lhs, rhs = (_einops_groups(s) for s in pattern.split("->"))
    n_ell = x.ndim - sum(1 for g in lhs if g != ["..."])
    ell = [f"...{i}" for i in range(n_ell)]
    sizes, names, shape, dims = dict(sizes), [], [], iter(x.shape)
    for g in lhs:
        if g == ["..."]:
            for n in ell:
                sizes[n] = next(dims)
            names += ell
            shape += [sizes[n] for n in ell]
            continue
        d = next(dims)
        g = [n for n in g if n != "1"]
        known = math.prod(sizes[n] for n in g if n in sizes)
        for n in g:
            sizes.setdefault(n, d // known)
        names += g
        shape += [sizes[n] for n in g]
    x = x.reshape(shape)
    right = [n for g in rhs for n in (ell if g == ["..."] else g) if n != "1"]
    x = x.permute([names.index(n) for n in right if n in names])
    if any(n not in names for n in right):  # repeat: new axes, broadcast
        kept = iter(x.shape)
        x = x.reshape([next(kept) if n in names else 1 for n in right]).expand([sizes[n] for n in right])
    out = []
    for g in rhs:
        if g == ["..."]:
            out += [sizes[n] for n in ell]
        else:
            out.append(math.prod(sizes[n] for n in g if n != "1"))
    return x.reshape(out)


def einops_standin() -> None:
    """A stand-in `einops` (rearrange, repeat) where einops is not installed: some kernel
    wrappers reshape with it between launches."""
    import importlib.util

    if importlib.util.find_spec("einops") is None:
        stub_module("einops", rearrange=_einops_rearrange, repeat=_einops_rearrange)


def sglang_package() -> None:
    """Make `import sglang.srt.layers.<...>` kernel modules work with torch + triton only.

    Skips sglang/__init__.py (the frontend language) and stubs sglang.srt.utils, a package
    whose __init__ imports the whole runtime, with the platform checks the kernel modules
    call at import time (answered from torch, as sglang's own checks are).
    """
    import importlib

    import torch

    bare_package("sglang", find_on_path("sglang"))
    importlib.import_module("sglang.srt")  # a namespace package (no __init__.py)
    is_cuda = lambda: torch.cuda.is_available() and torch.version.cuda is not None  # noqa: E731
    is_hip = lambda: torch.version.hip is not None  # noqa: E731
    stub_module(
        "sglang.srt.utils",
        is_cuda=is_cuda,
        is_hip=is_hip,
        is_cuda_alike=lambda: is_cuda() or is_hip(),
        is_xpu=lambda: False,
        is_npu=lambda: False,
        is_cpu=lambda: False,
        get_device_name=lambda device_id=0: torch.cuda.get_device_name(device_id),
    )


def torchao_package(*bare: str) -> None:
    """Make `import torchao.<...>` kernel modules work with torch + triton only.

    torchao/__init__.py loads the C++ extension and imports every quantization workflow;
    torchao.quantization and torchao.float8's __init__ do likewise. Those packages (and
    any in `bare`, dotted names under torchao) are registered without their __init__; the
    modules themselves run unchanged.
    """
    root = find_on_path("torchao")
    bare_package("torchao", root)
    for name in ("quantization", "float8", "prototype", *bare):
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            bare_package(f"torchao.{sub}", os.path.join(root, *parts[:i]))


def fbgemm_package() -> None:
    """Make `import fbgemm_gpu.experimental.<...>` / `fbgemm_gpu.sll.triton` / `fbgemm_gpu.triton`
    work with torch + triton only.

    The .realfiles tree lays the Python sources out as the fbgemm_gpu wheel installs them.
    fbgemm_gpu/__init__.py, fbgemm_gpu.experimental.gen_ai(.moe) and fbgemm_gpu.sll load
    the compiled extension (torch.ops.load_library) and register its CPU/Meta ops; they are
    registered without their __init__. The Triton modules run unchanged.
    """
    root = find_on_path("fbgemm_gpu")
    for name in (
        "",
        "experimental",
        "experimental.gemm",
        "experimental.gen_ai",
        "experimental.gen_ai.moe",
        "sll",
    ):
        parts = [p for p in name.split(".") if p]
        bare_package(".".join(["fbgemm_gpu", *parts]), os.path.join(root, *parts))


def flash_attn_package() -> None:
    """Make `import flash_attn.ops.triton.<op>` / `flash_attn.layers.rotary` work with torch +
    triton only: flash_attn/__init__.py imports the CUDA extension (flash_attn_2_cuda), so the
    package is registered without it; einops as einops_standin()."""
    bare_package("flash_attn", find_on_path("flash_attn"))
    einops_standin()


def mamba_package() -> None:
    """Make `import mamba_ssm.ops.triton.<op>` work with torch + triton only:
    mamba_ssm/__init__.py imports the selective-scan CUDA extension and the model classes,
    so the package (and mamba_ssm.ops) is registered without it; einops as einops_standin()."""
    root = find_on_path("mamba_ssm")
    bare_package("mamba_ssm", root)
    bare_package("mamba_ssm.ops", os.path.join(root, "ops"))
    einops_standin()


def xformers_ops_package() -> None:
    """Make `import xformers.ops.<op>` work with torch + triton only: xformers/__init__.py
    runs as is (it only notes that the C++ library is absent), xformers/ops/__init__.py,
    which imports every operator family (fmha, sequence parallel, sparse24), is skipped."""
    import importlib

    importlib.import_module("xformers")
    bare_package("xformers.ops", os.path.join(find_on_path("xformers"), "ops"))


def lightllm_kernels() -> None:
    """Make `import lightllm.models.llama.triton_kernel.<op>` work with torch + triton only:
    lightllm/models/__init__.py imports every model (and the serving stack), so
    lightllm.models is registered without its __init__; lightllm.utils runs as is."""
    root = find_on_path("lightllm")
    bare_package("lightllm", root)
    bare_package("lightllm.models", os.path.join(root, "models"))


def bitsandbytes_triton_cuda() -> None:
    """Make `import bitsandbytes` run on an NVIDIA GPU with bitsandbytes' own Triton backend
    (bitsandbytes/backends/triton) as its CUDA kernels.

    bitsandbytes/__init__.py imports backends/cuda/ops.py on a CUDA machine, whose kernels call
    libbitsandbytes_cuda*.so (not built here). That one module is replaced by an empty
    stand-in; after the package has loaded, the Triton ops are registered for "cuda" with the
    same list and the same torch.library.register_kernel calls that bitsandbytes/backends/xpu/
    ops.py uses when only Triton is available. torch.ops.bitsandbytes.*, bitsandbytes.functional,
    bnb.nn and bnb.optim then run unchanged (the ops Triton lacks keep bitsandbytes' "default"
    torch kernels, e.g. gemm_4bit, which itself calls the Triton dequantize ops).
    """
    import importlib
    import importlib.machinery

    import torch

    name = "bitsandbytes.backends.cuda.ops"
    if name not in sys.modules:
        mod = types.ModuleType(name)
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
        mod.__kx_stub__ = True
        sys.modules[name] = mod
    importlib.import_module("bitsandbytes")
    from bitsandbytes.backends.triton import ops as triton_ops

    for op, fn in (
        ("quantize_blockwise", triton_ops.quantize_blockwise),
        ("dequantize_blockwise.out", triton_ops.dequantize_blockwise_inplace),
        ("dequantize_blockwise", triton_ops.dequantize_blockwise),
        ("quantize_4bit", triton_ops.quantize_4bit),
        ("dequantize_4bit.out", triton_ops.dequantize_4bit_inplace),
        ("dequantize_4bit", triton_ops.dequantize_4bit),
        ("gemv_4bit", triton_ops.gemv_4bit),
        ("optimizer_update_8bit_blockwise", triton_ops.optimizer_update_8bit_blockwise),
        ("optimizer_update_32bit", triton_ops.optimizer_update_32bit),
    ):
        torch.library.register_kernel(f"bitsandbytes::{op}", "cuda", fn)


def deepspeed_package() -> None:
    """Make `import deepspeed.moe.<...>` / `deepspeed.ops.triton_ops` work with torch + triton only.

    deepspeed/__init__.py imports the training engine (comm, pydantic configs, hjson, op
    builders), deepspeed/ops/__init__.py and deepspeed/utils/__init__.py import the compiled-op
    loaders and comm; those three packages are registered without their __init__. The
    .realfiles tree holds deepspeed/moe, deepspeed/ops/triton_ops, deepspeed/utils and the
    accelerator/ folder (upstream's deepspeed/accelerator is a symlink to it); the accelerator
    detection, deepspeed.utils.logging and the kernel modules run unchanged.
    """
    root = find_on_path("deepspeed")
    bare_package("deepspeed", root)
    for sub in ("ops", "utils"):
        bare_package(f"deepspeed.{sub}", os.path.join(root, sub))


def _megablocks_sort(x, end_bit, x_out, iota_out):
    """megablocks_ops.sort (CUB radix sort of the low end_bit bits) as a stable torch.sort."""
    import torch

    values, order = torch.sort(x, stable=True)
    x_out.copy_(values)
    iota_out.copy_(order.to(iota_out.dtype))


def _megablocks_histogram(x, num_bins):
    """megablocks_ops.histogram: int32 counts of each value in [0, num_bins)."""
    import torch

    return torch.bincount(x.flatten().long(), minlength=num_bins)[:num_bins].to(torch.int32)


def _megablocks_inclusive_cumsum(x, dim, out):
    out.copy_(x.cumsum(dim))


def _megablocks_exclusive_cumsum(x, dim, out):
    out.copy_(x.cumsum(dim) - x)


def megablocks_package() -> None:
    """Make `import megablocks.layers.moe` / `megablocks.ops` work with torch + triton only.

    megablocks/__init__.py imports the dropless layers; it is skipped. Stand-ins, all for
    code that is absent here: megablocks_ops (megablocks' compiled CUDA extension) with
    sort / histogram / cumsum as torch code; stk (the block-sparse matmul library, which
    megablocks.ops and megablocks.layers import at module level: its autocast decorators as
    torch.amp's, its matrix class and ops as never-called names: the dense MoE path does not use
    them); grouped_gemm (the CUTLASS extension: Arguments(mlp_impl="grouped") only checks that
    it imports). megablocks.ops, megablocks.layers and megablocks/backend/kernels.py run unchanged.
    """
    import functools

    import torch

    bare_package("megablocks", find_on_path("megablocks"))
    stub_module(
        "megablocks_ops",
        sort=_megablocks_sort,
        histogram=_megablocks_histogram,
        inclusive_cumsum=_megablocks_inclusive_cumsum,
        exclusive_cumsum=_megablocks_exclusive_cumsum,
    )

    class Matrix:  # stk.Matrix: only the sparse (dMoE) path builds one
        pass

    stub_module("stk", Matrix=Matrix)
    stub_module("stk.ops")
    stub_module("stk.backend.triton_kernels")
    stub_module(
        "stk.backend.autocast",
        custom_fwd=functools.partial(torch.amp.custom_fwd, device_type="cuda"),
        custom_bwd=functools.partial(torch.amp.custom_bwd, device_type="cuda"),
    )
    stub_module("grouped_gemm", backend=_AnyAttr(), ops=_AnyAttr())


def flashinfer_triton_package() -> None:
    """Make `import flashinfer.triton.<op>` work with torch + triton only: flashinfer/__init__.py
    loads the JIT / prebuilt CUDA kernels and flashinfer/utils.py imports pynvml and the JIT
    environment, so flashinfer is registered without its __init__ and flashinfer.utils is a
    stand-in holding the two names flashinfer/triton/utils.py imports (get_compute_capability,
    answered from torch.cuda as upstream does, and GPUArchitectureError). flashinfer/triton/
    __init__.py and its modules run unchanged."""
    import torch

    bare_package("flashinfer", find_on_path("flashinfer"))

    class GPUArchitectureError(Exception):
        pass

    def get_compute_capability(device):
        if device.type != "cuda":
            raise ValueError("device must be a cuda device")
        props = torch.cuda.get_device_properties(device)
        return props.major, props.minor

    stub_module(
        "flashinfer.utils",
        get_compute_capability=get_compute_capability,
        GPUArchitectureError=GPUArchitectureError,
    )


def _einops_einsum(*args):
    """einops.einsum(*tensors, pattern) with named axes (space-separated, `...` allowed) as
    torch.einsum with one letter per name."""
    import torch

    *tensors, pattern = args
    letters: dict[str, str] = {}
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def side(s):
        return "".join(t if t == "..." else letters.setdefault(t, alphabet[len(letters)]) for t in s.split())

    lhs, rhs = pattern.split("->")
    return torch.einsum(",".join(side(s) for s in lhs.split(",")) + "->" + side(rhs), *tensors)


def _einops_reduce(x, pattern: str, reduction: str, **sizes):
    """einops.reduce for named axes, `...` and `(a b)` groups: split the input axes, reduce
    the ones absent on the right ('sum', 'mean', 'max', 'min', 'prod'), rearrange the rest."""
    import torch

    lhs, rhs = pattern.split("->")
    flat = [n for g in _einops_groups(lhs) for n in g if n != "1"]
    kept_names = {n for g in _einops_groups(rhs) for n in g}
    y = _einops_rearrange(x, f"{lhs}-> {' '.join(flat)}", **sizes)
    n_ell = y.ndim - sum(1 for n in flat if n != "...")
    dims, pos = [], 0
    for n in flat:
        width = n_ell if n == "..." else 1
        if n != "..." and n not in kept_names:
            dims.append(pos)
        pos += width
    op = {"max": torch.amax, "min": torch.amin}.get(reduction) or getattr(torch, reduction)
    if dims:
        y = op(y, dim=dims) if reduction != "prod" else y.flatten(dims[0], dims[-1]).prod(dims[0])
    kept = [n for n in flat if n == "..." or n in kept_names]
    return _einops_rearrange(y, f"{' '.join(kept)} -> {rhs}", **sizes)


def einops_full_standin() -> None:
    """einops_standin() plus `einsum` and `reduce` on the stand-in (only where einops is not
    installed): lucidrains-style modules import `einsum, rearrange, repeat, reduce` from einops
    at module level and call einsum between launches (PoPE's frequency table)."""
    einops_standin()
    mod = sys.modules.get("einops")
    if mod is not None and getattr(mod, "__kx_stub__", False):
        mod.einsum = getattr(mod, "einsum", _einops_einsum)
        mod.reduce = getattr(mod, "reduce", _einops_reduce)


# --- fresh2_a: TransformerEngine, SageAttention, GPTQModel, lightning-thunder ---------------


def transformer_engine_triton(permutation: bool = False) -> None:
    """Make `import transformer_engine.pytorch.triton.<op>` (mhc, cross_entropy, permutation)
    and transformer_engine.pytorch.cross_entropy work with torch + triton only.

    transformer_engine/__init__.py, transformer_engine/pytorch/__init__.py and
    transformer_engine/pytorch/triton/__init__.py load or import the compiled extension
    (transformer_engine_torch, libtransformer_engine.so); they are registered without their
    __init__ (transformer_engine.common, whose __init__ loads the .so, is a namespace package
    here: only common/triton/ is extracted). pytorch/triton/mhc.py imports cpp_extensions'
    general_gemm (cuBLAS) for the projection backward without norm_weight: a stand-in that
    raises if called. With permutation=True, also the names transformer_engine/pytorch/
    permutation.py imports: transformer_engine_torch (the index-map ops, not used by the
    mask-map path), constants.TE_DType (index-map path only) and the quantized-tensor classes
    it checks inputs against with isinstance (plain classes here: inputs are bf16 tensors).
    """
    root = find_on_path("transformer_engine")
    bare_package("transformer_engine", root)
    bare_package("transformer_engine.pytorch", os.path.join(root, "pytorch"))
    bare_package("transformer_engine.pytorch.triton", os.path.join(root, "pytorch", "triton"))

    def general_gemm(*args, **kwargs):
        raise NotImplementedError("cuBLAS general_gemm (transformer_engine_torch) is not built here")

    stub_module("transformer_engine.pytorch.cpp_extensions.gemm", general_gemm=general_gemm)
    if permutation:
        stub_module("transformer_engine_torch")
        stub_module("transformer_engine.pytorch.constants", TE_DType={})

        class QuantizedTensor:
            pass

        stub_module(
            "transformer_engine.pytorch.quantized_tensor",
            QuantizedTensor=QuantizedTensor,
            _quantized_tensor_passthrough_ops=set(),
        )
        for mod, cls in (
            ("float8_tensor", "Float8Tensor"),
            ("float8_blockwise_tensor", "Float8BlockwiseQTensor"),
            ("mxfp8_tensor", "MXFP8Tensor"),
        ):
            stub_module(
                f"transformer_engine.pytorch.tensor.{mod}", **{cls: type(cls, (QuantizedTensor,), {})}
            )


def sageattention_package() -> None:
    """Make `import sageattention.core` work with torch + triton only: sageattention/quant.py
    imports sageattention._fused (the compiled CUDA quantization extension, used only by the
    CUDA attention paths) at module level; it is a stand-in. core.py's own try/except skips the
    absent sm80/sm89/sm90 CUDA kernels. The package __init__ (re-exports of core) is skipped."""
    bare_package("sageattention", find_on_path("sageattention"))
    stub_module("sageattention._fused")


def gptqmodel_triton() -> None:
    """Make `import gptqmodel.nn_modules.triton_utils.dequant` and
    `gptqmodel.nn_modules.qlinear.gguf_triton` work with torch + triton only.

    gptqmodel/__init__.py (model loading), gptqmodel/utils/__init__.py and
    gptqmodel/nn_modules/qlinear/__init__.py import the whole quantization stack (pcre, logbar,
    threadpoolctl, device-smi, transformers); those packages are registered without their
    __init__. Stand-ins for the module-level names the two kernel files import from it:
    utils.torch.HAS_XPU (False on an NVIDIA machine, as upstream computes it),
    utils.python.has_gil_disabled, and, for gguf_triton.py's GGUFTritonKernel class body
    (the nn.Module wrapper, not used by the fused_* launch functions): adapter.adapter
    (Adapter, Lora), models._const (DEVICE, PLATFORM), quantization (FORMAT, METHOD) and
    qlinear.gguf (GGUFTorchLinear base class, _unpack_q4_k_scale_min_torch). utils/backend.py,
    triton_utils/custom_autotune.py and the kernel modules run unchanged.
    """
    import torch

    root = find_on_path("gptqmodel")
    bare_package("gptqmodel", root)
    for sub in ("utils", "nn_modules", "nn_modules.qlinear"):
        bare_package(f"gptqmodel.{sub}", os.path.join(root, *sub.split(".")))
    stub_module("gptqmodel.utils.torch", HAS_XPU=hasattr(torch, "xpu") and torch.xpu.is_available())
    gil = getattr(sys, "_is_gil_enabled", None)
    stub_module("gptqmodel.utils.python", has_gil_disabled=lambda: callable(gil) and not gil())
    stub_module("gptqmodel.adapter.adapter", Adapter=type("Adapter", (), {}), Lora=type("Lora", (), {}))
    stub_module("gptqmodel.models._const", DEVICE=_AnyAttr(), PLATFORM=_AnyAttr())
    stub_module("gptqmodel.quantization", FORMAT=_AnyAttr(), METHOD=_AnyAttr())
    stub_module(
        "gptqmodel.nn_modules.qlinear.gguf",
        GGUFTorchLinear=type("GGUFTorchLinear", (torch.nn.Module,), {}),
        _unpack_q4_k_scale_min_torch=None,
    )


class _ThunderOperatorExecutor:
    """thunder.extend.OperatorExecutor as triton_crossentropy_impl.py uses it at import: the
    operator and its implementation are recorded, nothing is traced."""

    def __init__(self, name, *, version=None):
        self.name, self.version, self.implmap = name, version, {}

    def register_operator(self, name, *, like=None, fn=None, **kwargs):
        return fn

    def register_implementation(self, sym, op=None, *, checker=None, **kwargs):
        self.implmap[sym] = (op, checker)


def thunder_triton_ce() -> None:
    """Make `import thunder.executors.triton_crossentropy_impl` work with torch + triton only.

    lightning-thunder's own runtime (thunder/__init__.py: the tracer, optree, dill, nvfuser
    probing) is not installed on the device; thunder and thunder.executors are registered
    without their __init__ and the executor registry the module calls at import time is a
    stand-in (thunder.extend.OperatorExecutor / register_executor; thunder.torch's
    cross_entropy symbol and to_torch_dtype). thunder/executors/triton_utils.py runs unchanged
    on looseversion / lightning_utilities, with stand-ins (packaging.version, find_spec) only
    where those two small packages are absent. The Triton kernels, their autotuners and the
    CrossEntropy autograd.Function run unchanged.
    """
    import importlib.util

    from packaging.version import Version

    root = find_on_path("thunder")
    bare_package("thunder", root)
    bare_package("thunder.executors", os.path.join(root, "executors"))
    if importlib.util.find_spec("looseversion") is None:

        class LooseVersion:
            def __init__(self, v):
                self.v = Version(str(v))

            def __ge__(self, other):
                return self.v >= Version(str(other))

        stub_module("looseversion", LooseVersion=LooseVersion)
    if importlib.util.find_spec("lightning_utilities") is None:
        stub_module(
            "lightning_utilities.core.imports",
            package_available=lambda name: importlib.util.find_spec(name) is not None,
        )
    stub_module("thunder.extend", OperatorExecutor=_ThunderOperatorExecutor, register_executor=_noop)
    stub_module("thunder.torch", cross_entropy=None, to_torch_dtype=lambda d: d)


# --- fresh3: lmdeploy, attorch, MInference, AutoAWQ, litgpt, airbench, DiT ------------------


class _Anything:
    """A stand-in value for names a module imports from an absent package and never uses on the
    path the driver takes: callable (returns another stand-in), subclassable, falsy."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __bool__(self):
        return False

    def __mro_entries__(self, bases):
        return (object,)


def stub_any(name: str) -> types.ModuleType:
    """stub_module(name) whose every missing attribute is an _Anything (PEP 562 __getattr__),
    for `from absent.pkg import A, B, C` at module level."""
    mod = stub_module(name)
    if getattr(mod, "__kx_stub__", False):

        def __getattr__(attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return _Anything()

        mod.__getattr__ = __getattr__
    return mod


def lmdeploy_kernels() -> None:
    """Make `import lmdeploy.pytorch.kernels.cuda.<op>` work with torch + triton only.

    lmdeploy/__init__.py (the serving API, turbomind), lmdeploy/pytorch/__init__.py and
    lmdeploy/pytorch/kernels/cuda/__init__.py (imports every kernel module) are skipped:
    the packages are registered bare. Two module-level imports of the kernel files are
    stood in: lmdeploy.messages (pydantic, the disaggregation config, the tokenizer) for
    its QuantPolicy enum, restated with upstream's values, and lmdeploy.utils (imports
    transformers) for get_logger. The kernel modules and kernels/cuda/utils.py run unchanged.
    """
    import enum

    root = find_on_path("lmdeploy")
    bare_package("lmdeploy", root)
    bare_package("lmdeploy.pytorch", os.path.join(root, "pytorch"))
    bare_package("lmdeploy.pytorch.kernels", os.path.join(root, "pytorch", "kernels"))
    bare_package("lmdeploy.pytorch.kernels.cuda", os.path.join(root, "pytorch", "kernels", "cuda"))
    bare_package("lmdeploy.pytorch.kernels.default", os.path.join(root, "pytorch", "kernels", "default"))

    class QuantPolicy(enum.IntEnum):
        NONE = 0
        INT4 = 4
        INT8 = 8
        FP8 = 16
        FP8_E5M2 = 17
        TURBO_QUANT = 42

    stub_module("lmdeploy.messages", QuantPolicy=QuantPolicy)
    stub_module("lmdeploy.utils", get_logger=lambda name="lmdeploy": logging.getLogger(name))


def awq_package() -> None:
    """Make `from awq.modules.linear.gemm import WQLinear_GEMM` work with torch + triton only:
    awq/__init__.py (AutoAWQForCausalLM, transformers) and awq/modules/linear/__init__.py (every
    linear kind, some importing absent CUDA extensions) are skipped; awq/utils/utils.py imports
    accelerate at module level (not used by get_best_device): a stand-in where it is absent.
    awq_ext (the CUDA kernels) is absent, as on a Triton-only install: try_import returns None
    and the Triton path is taken, as upstream decides. gemm.py, awq/modules/triton/gemm.py and
    awq/utils run unchanged."""
    import importlib.util

    root = find_on_path("awq")
    bare_package("awq", root)
    bare_package("awq.modules", os.path.join(root, "modules"))
    bare_package("awq.modules.linear", os.path.join(root, "modules", "linear"))
    if importlib.util.find_spec("accelerate") is None:
        stub_module("accelerate")


def minference_ops() -> None:
    """Make `import minference.ops.<op>` work with torch + triton only: minference/__init__.py
    patches transformers models and imports the CUDA extension; minference and minference.ops
    are registered without their __init__. The kernel modules run unchanged."""
    root = find_on_path("minference")
    bare_package("minference", root)
    bare_package("minference.ops", os.path.join(root, "ops"))


def litgpt_package() -> None:
    """Make `import litgpt.model`, `litgpt.utils` and `litgpt.generate.base` work with torch +
    triton only. litgpt/__init__.py imports the LLM API (lightning, litserve, the tokenizers) and
    is skipped (bare package). lightning, lightning_utilities and jsonargparse are not on the
    device: stand-ins whose names are inert (_Anything; RequirementCache is falsy, i.e. the
    optional package counts as absent: bitsandbytes, wandb, ...); psutil and safetensors only
    where absent. litgpt.scripts.convert_hf_checkpoint (imported by model.py for
    qkv_reassemble, used only when loading HF checkpoints; it imports safetensors, tqdm and
    lightning's lazy loader) is a stand-in. litgpt/config.py, model.py, utils.py,
    tokenizer.py, prompts.py, constants.py and generate/base.py run unchanged."""
    import importlib.util

    root = find_on_path("litgpt")
    bare_package("litgpt", root)
    bare_package("litgpt.generate", os.path.join(root, "generate"))
    bare_package("litgpt.scripts", os.path.join(root, "scripts"))
    for name in (
        "lightning",
        "lightning.fabric",
        "lightning.fabric.plugins",
        "lightning.fabric.loggers",
        "lightning.fabric.strategies",
        "lightning.fabric.utilities",
        "lightning.fabric.utilities.load",
        "lightning.pytorch",
        "lightning.pytorch.cli",
        "lightning.pytorch.loggers",
    ):
        stub_any(name)
    stub_module("lightning_utilities.core.imports", RequirementCache=_Anything)
    if importlib.util.find_spec("psutil") is None:
        stub_any("psutil")
    if importlib.util.find_spec("safetensors") is None:
        stub_any("safetensors.torch")
    stub_module("litgpt.scripts.convert_hf_checkpoint", qkv_reassemble=None)


# --- fresh4: DeepSeek-V3, nano-vllm, NSA (Triton), attention-gym, llama2.c, llm.c, gpt-oss, CoLT5 ---


def packaging_standin() -> None:
    """`packaging.version` (parse / Version) where packaging is not installed: some modules
    check the Triton version at import. Release segments compared as integer tuples."""
    import importlib.util
    import re

    if importlib.util.find_spec("packaging") is not None:
        return

    class Version:
        def __init__(self, v):
            self.public = str(v)
            nums = re.match(r"\d+(\.\d+)*", self.public)
            self.release = tuple(int(p) for p in nums.group(0).split(".")) if nums else (0,)

        def _key(self, other):
            other = other if isinstance(other, Version) else Version(other)
            n = max(len(self.release), len(other.release))
            pad = lambda r: r + (0,) * (n - len(r))  # noqa: E731
            return pad(self.release), pad(other.release)

        def __lt__(self, o):
            a, b = self._key(o)
            return a < b

        def __le__(self, o):
            a, b = self._key(o)
            return a <= b

        def __gt__(self, o):
            a, b = self._key(o)
            return a > b

        def __ge__(self, o):
            a, b = self._key(o)
            return a >= b

        def __eq__(self, o):
            a, b = self._key(o)
            return a == b

    stub_module("packaging.version", Version=Version, parse=Version)


class _ByteTokenizer:
    """A tokenizer stand-in (the real ones are downloaded files): UTF-8 bytes shifted by
    `offset` as ids, decode the inverse (ids outside the byte range are dropped)."""

    def __init__(self, offset=3, eos_token_id=2, bos_token_id=1):
        self.offset, self.eos_token_id, self.bos_token_id = offset, eos_token_id, bos_token_id

    def encode(self, text, *args, **kwargs):
        return [b + self.offset for b in str(text).encode("utf-8")]

    def decode(self, ids, *args, **kwargs):
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        return bytes(i - self.offset for i in ids if self.offset <= i < self.offset + 256).decode(
            "utf-8", "replace"
        )

    def batch_decode(self, seqs, *args, **kwargs):
        return [self.decode(s) for s in seqs]

    def apply_chat_template(self, messages, tokenize=True, add_generation_prompt=False, **kwargs):
        text = "".join(f"<{m['role']}>{m['content']}" for m in messages) + (
            "<assistant>" if add_generation_prompt else ""
        )
        return self.encode(text) if tokenize else text


def deepseek_v3_inference() -> None:
    """Make `import generate` / `import model` / `import kernel` (DeepSeek-V3's inference/ folder,
    on sys.path as its README runs it: `cd inference; torchrun generate.py ...`) work with torch +
    triton only: generate.py imports transformers (AutoTokenizer, for the chat template) and
    safetensors.torch.load_model (the checkpoint shards) at module level; where absent they are
    stand-ins (a byte tokenizer; load_model is not called: the driver's weights are random).
    model.py, kernel.py and generate.generate() run unchanged."""
    import importlib.util

    if importlib.util.find_spec("transformers") is None:
        stub_module(
            "transformers",
            AutoTokenizer=types.SimpleNamespace(from_pretrained=lambda *a, **k: _ByteTokenizer()),
        )
    if importlib.util.find_spec("safetensors") is None:
        stub_module("safetensors.torch", load_model=_noop)


def _attend(q, k, v, mask, scale):
    """softmax(q k^T * scale + mask) v in fp32 with GQA (q heads a multiple of k heads);
    q (B, H, Lq, D), k/v (B, Hk, Lk, D), mask (B, 1, Lq, Lk) bool (True = attend)."""
    import torch

    rep = q.shape[1] // k.shape[1]
    if rep > 1:
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    s = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    s = s.masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # a row with no key (padding) gives zeros
    return torch.matmul(p, v.float()).to(q.dtype)


def _flash_attn_varlen_func(
    q,
    k,
    v,
    cu_seqlens_q,
    cu_seqlens_k,
    max_seqlen_q,
    max_seqlen_k,
    dropout_p=0.0,
    softmax_scale=None,
    causal=False,
    window_size=(-1, -1),
    softcap=0.0,
    alibi_slopes=None,
    deterministic=False,
    return_attn_probs=False,
    block_table=None,
):
    """flash_attn.flash_attn_varlen_func in torch (differentiable, no host reads): packed q
    (total_q, H, D) and k/v (total_k, Hk, D) -- or a paged cache (num_blocks, block_size, Hk, D)
    read through block_table -- padded per sequence to (B, max_seqlen, ...) with index
    arithmetic, bottom-right aligned causal mask and sliding window as flash-attn defines them."""
    import torch

    dev = q.device
    b = cu_seqlens_q.shape[0] - 1
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    len_q = (cu_seqlens_q[1:] - cu_seqlens_q[:-1]).long()
    len_k = (cu_seqlens_k[1:] - cu_seqlens_k[:-1]).long()
    iq = torch.arange(max_seqlen_q, device=dev)
    ik = torch.arange(max_seqlen_k, device=dev)
    valid_q = iq[None, :] < len_q[:, None]
    valid_k = ik[None, :] < len_k[:, None]
    gq = (cu_seqlens_q[:-1].long()[:, None] + iq[None, :]).clamp(max=q.shape[0] - 1)
    qp = q[gq.flatten()].view(b, max_seqlen_q, *q.shape[1:])
    if block_table is None:
        gk = (cu_seqlens_k[:-1].long()[:, None] + ik[None, :]).clamp(max=k.shape[0] - 1).flatten()
        kp, vp = k[gk], v[gk]
    else:
        bs = k.shape[1]
        blk = block_table.long().gather(
            1, (ik // bs)[None, :].expand(b, -1).clamp(max=block_table.shape[1] - 1)
        )
        slot = (blk.clamp(min=0) * bs + (ik % bs)[None, :]).flatten()
        kp, vp = k.flatten(0, 1)[slot], v.flatten(0, 1)[slot]
    kp = kp.view(b, max_seqlen_k, *k.shape[-2:])
    vp = vp.view(b, max_seqlen_k, *v.shape[-2:])
    # query i of a sequence sits at key position i + len_k - len_q (flash-attn's alignment)
    qpos = iq[None, :] + (len_k - len_q)[:, None]
    mask = valid_q[:, :, None] & valid_k[:, None, :]
    if causal:
        mask = mask & (ik[None, None, :] <= qpos[:, :, None])
    left, right = window_size
    if left >= 0:
        mask = mask & (ik[None, None, :] >= qpos[:, :, None] - left)
    if right >= 0:
        mask = mask & (ik[None, None, :] <= qpos[:, :, None] + right)
    o = _attend(qp.transpose(1, 2), kp.transpose(1, 2), vp.transpose(1, 2), mask[:, None], scale)
    o = o.transpose(1, 2)  # (B, Lq, H, D)
    # back to the packed layout: token t is (sequence, position)
    t = torch.arange(q.shape[0], device=dev)
    seq = torch.searchsorted(cu_seqlens_q[1:].long(), t, right=True).clamp(max=b - 1)
    pos = t - cu_seqlens_q[:-1].long()[seq]
    return o[seq, pos]


def _flash_attn_with_kvcache(
    q,
    k_cache,
    v_cache,
    k=None,
    v=None,
    rotary_cos=None,
    rotary_sin=None,
    cache_seqlens=None,
    cache_batch_idx=None,
    cache_leftpad=None,
    block_table=None,
    softmax_scale=None,
    causal=False,
    window_size=(-1, -1),
    softcap=0.0,
    rotary_interleaved=True,
    alibi_slopes=None,
    num_splits=0,
    return_softmax_lse=False,
):
    """flash_attn.flash_attn_with_kvcache in torch for the decode path (new k/v already in the
    cache): q (B, Sq, H, D); the cache dense (B, S, Hk, D) or paged (num_blocks, block_size, Hk, D)
    through block_table; keys past cache_seqlens masked; graph-capturable (no host reads)."""
    import torch

    b, sq = q.shape[:2]
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    if block_table is not None:
        nb, bs = block_table.shape[1], k_cache.shape[1]
        idx = block_table.long().clamp(min=0)
        kc = k_cache[idx].reshape(b, nb * bs, *k_cache.shape[2:])
        vc = v_cache[idx].reshape(b, nb * bs, *v_cache.shape[2:])
    else:
        kc, vc = k_cache[:b], v_cache[:b]
    lk = kc.shape[1]
    ik = torch.arange(lk, device=q.device)
    if cache_seqlens is None:
        seqlens = torch.full((b,), lk, device=q.device, dtype=torch.long)
    elif isinstance(cache_seqlens, int):
        seqlens = torch.full((b,), cache_seqlens, device=q.device, dtype=torch.long)
    else:
        seqlens = cache_seqlens.long()
    mask = ik[None, None, :] < seqlens[:, None, None]
    qpos = torch.arange(sq, device=q.device)[None, :] + (seqlens - sq)[:, None]
    if causal:
        mask = mask & (ik[None, None, :] <= qpos[:, :, None])
    if window_size[0] >= 0:
        mask = mask & (ik[None, None, :] >= qpos[:, :, None] - window_size[0])
    o = _attend(q.transpose(1, 2), kc.transpose(1, 2), vc.transpose(1, 2), mask[:, None], scale)
    return o.transpose(1, 2)


def flash_attn_standin() -> None:
    """`flash_attn` (flash_attn_varlen_func, flash_attn_with_kvcache, flash_attn_func) as torch
    code where the package is absent (it is a compiled CUDA extension, not on the device):
    attention computed with matmul + masked softmax, differentiable, no host reads, so the
    CUDA-graph decode of an engine can capture it. Not flash-attn's kernels: the Triton and
    Inductor kernels around it are what the corpus measures."""
    import importlib.util

    if importlib.util.find_spec("flash_attn") is not None:
        return

    def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), **kw):
        import torch

        b, sq, sk = q.shape[0], q.shape[1], k.shape[1]
        cu_q = torch.arange(0, (b + 1) * sq, sq, device=q.device, dtype=torch.int32)
        cu_k = torch.arange(0, (b + 1) * sk, sk, device=q.device, dtype=torch.int32)
        o = _flash_attn_varlen_func(
            q.flatten(0, 1),
            k.flatten(0, 1),
            v.flatten(0, 1),
            cu_q,
            cu_k,
            sq,
            sk,
            softmax_scale=softmax_scale,
            causal=causal,
            window_size=window_size,
        )
        return o.view(q.shape)

    stub_module(
        "flash_attn",
        flash_attn_varlen_func=_flash_attn_varlen_func,
        flash_attn_with_kvcache=_flash_attn_with_kvcache,
        flash_attn_func=flash_attn_func,
    )


def _tqdm_standin() -> None:
    """`tqdm` / `tqdm.auto` (a progress bar) where absent: an iterable wrapper whose methods do nothing."""
    import importlib.util

    if importlib.util.find_spec("tqdm") is not None:
        return

    class tqdm:
        def __init__(self, iterable=None, *args, **kwargs):
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable if self.iterable is not None else ())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        update = set_postfix = set_description = close = refresh = write = _noop

    stub_module("tqdm", tqdm=tqdm, trange=lambda *a, **k: tqdm(range(*a)))
    stub_module("tqdm.auto", tqdm=tqdm)


def nanovllm_package(hf_config: dict) -> None:
    """Make `from nanovllm import LLM, SamplingParams` work with torch + triton only.

    nano-vllm imports transformers (AutoConfig / AutoTokenizer for the model folder, Qwen3Config
    as an annotation), flash_attn (varlen prefill and paged-KV decode attention), xxhash (the
    prefix-cache block hashes), safetensors (the checkpoint loader) and tqdm. Where absent they
    are stand-ins: AutoConfig answers `hf_config` (the fields of a Qwen3 config.json) as an
    object, the tokenizer is a byte tokenizer, flash_attn is flash_attn_standin(), xxhash.xxh64
    is hashlib's blake2b (8 bytes), safe_open is never reached (no .safetensors files).
    nanovllm's engine, scheduler, block manager, model runner (NCCL group of one, CUDA graphs),
    layers (torch.compile'd norms, rotary, activation, sampler) and the Triton store_kvcache
    kernel run unchanged."""
    import hashlib
    import importlib.util

    flash_attn_standin()
    _tqdm_standin()
    if importlib.util.find_spec("transformers") is None:

        class _Config(types.SimpleNamespace):
            pass

        tok = _ByteTokenizer(eos_token_id=hf_config.get("eos_token_id", 2))

        class AutoConfig:  # a class: config.py annotates `AutoConfig | None`
            @staticmethod
            def from_pretrained(*args, **kwargs):
                return _Config(**hf_config)

        class AutoTokenizer:
            @staticmethod
            def from_pretrained(*args, **kwargs):
                return tok

        stub_module("transformers", AutoConfig=AutoConfig, AutoTokenizer=AutoTokenizer, Qwen3Config=_Config)
    if importlib.util.find_spec("xxhash") is None:

        class xxh64:
            def __init__(self):
                self.h = hashlib.blake2b(digest_size=8)

            def update(self, data):
                self.h.update(data)

            def intdigest(self):
                return int.from_bytes(self.h.digest(), "little")

        stub_module("xxhash", xxh64=xxh64)
    if importlib.util.find_spec("safetensors") is None:
        stub_module("safetensors", safe_open=None)


def _rope_default(config, device=None, seq_len=None, **kwargs):
    """transformers' default RoPE inverse frequencies: base ** (-2i / dim), scaling 1."""
    import torch

    dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    base = config.rope_theta
    inv_freq = 1.0 / (
        base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(device=device, dtype=torch.float) / dim)
    )
    return inv_freq, 1.0


def _rope_llama3(config, device=None, seq_len=None, **kwargs):
    """transformers' "llama3" RoPE (Llama 3.1 frequency scaling): low frequencies divided by
    `factor`, high ones kept, a smooth blend between the two wavelengths."""
    import math

    import torch

    inv_freq, scaling = _rope_default(config, device, seq_len)
    rs = config.rope_scaling
    factor, low, high, old = (
        rs["factor"],
        rs["low_freq_factor"],
        rs["high_freq_factor"],
        rs["original_max_position_embeddings"],
    )
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama), scaling


def nsa_package() -> None:
    """Make `import native_sparse_attention.*` (XunhaoLai/native-sparse-attention-triton) work
    with torch + triton only. Its modules import flash_attn (the sliding-window branch and the
    self-attention prefill), einops, and transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS (the
    RoPE frequencies); where absent these are flash_attn_standin(), einops_full_standin() and
    the two RoPE initialisers it uses ("default", "llama3") restated from transformers' formulas.
    The package's __init__ files, ops (Triton kernels with their autograd Functions), modules,
    KV caches and toy models run unchanged."""
    import importlib.util

    flash_attn_standin()
    einops_full_standin()
    if importlib.util.find_spec("transformers") is None:
        stub_module(
            "transformers.modeling_rope_utils",
            ROPE_INIT_FUNCTIONS={"default": _rope_default, "llama3": _rope_llama3},
        )


def _tabulate(rows, headers=(), tablefmt=None, **kwargs):
    """tabulate.tabulate as plain aligned text (the benchmark tables only print)."""
    table = [list(map(str, headers))] if headers else []
    table += [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in table if i < len(r)) for i in range(max(map(len, table), default=0))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in table)


def attention_gym_package() -> None:
    """Make attention-gym's examples importable with torch + triton only: `attn_gym` itself is
    torch-only at import (its CuTe / KDA backends load lazily); examples/benchmark.py imports
    tabulate at module level, a plain-text stand-in where absent (jsonargparse is only used
    under its __main__, which the driver does not run)."""
    import importlib.util

    if importlib.util.find_spec("tabulate") is None:
        stub_module("tabulate", tabulate=_tabulate)


class _SentencePieceProcessor:
    """sentencepiece.SentencePieceProcessor stand-in (the Llama 2 tokenizer.model is a download):
    the byte tokenizer with Llama 2's special ids (unk 0, bos 1, eos 2, no pad) and vocab 32000."""

    def __init__(self, model_file=None, **kwargs):
        self._tok = _ByteTokenizer(offset=3, eos_token_id=2, bos_token_id=1)

    def vocab_size(self):
        return 32000

    get_piece_size = vocab_size

    def bos_id(self):
        return 1

    def eos_id(self):
        return 2

    def pad_id(self):
        return -1

    def encode(self, s, *args, **kwargs):
        return self._tok.encode(s)

    def decode(self, ids, *args, **kwargs):
        return self._tok.decode(ids)

    def id_to_piece(self, i):
        return f"<0x{i - 3:02X}>" if 3 <= i < 259 else f"<{i}>"

    def get_score(self, i):
        return 0.0


def llama2c_package() -> None:
    """Make karpathy/llama2.c's scripts (train.py, sample.py: `exec(open('configurator.py')...)`
    top-level scripts importing model, tinystories, tokenizer, export) run with torch + triton
    only: tinystories.py imports requests (the dataset download), sentencepiece (the tokenizer)
    and tqdm at module level. Where absent: requests is inert, sentencepiece is a byte tokenizer
    with the Llama 2 special ids, tqdm is _tqdm_standin(). model.py, train.py, sample.py,
    configurator.py, tinystories.py's PretokDataset / Task and export.py run unchanged."""
    import importlib.util

    _tqdm_standin()
    if importlib.util.find_spec("requests") is None:
        stub_any("requests")
    if importlib.util.find_spec("sentencepiece") is None:
        stub_module(
            "sentencepiece", SentencePieceProcessor=_SentencePieceProcessor, SentencePieceTrainer=_Anything()
        )


def run_script(path: str, argv: list[str], cwd: str | None = None) -> dict:
    """Run an upstream script as `python <path> <argv...>` does (runpy, __name__ == "__main__",
    sys.argv set, optionally from `cwd`); returns its globals."""
    import runpy

    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = [path, *argv]
    if cwd:
        os.chdir(cwd)
    try:
        return runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)


def llmc_package() -> None:
    """Make karpathy/llm.c's train_gpt2.py run with torch + triton only: its __main__ imports
    tiktoken (the GPT-2 BPE, downloaded on first use); where absent, get_encoding("gpt2") is a
    byte tokenizer with GPT-2's end-of-text id (50256). The script runs unchanged."""
    import importlib.util

    if importlib.util.find_spec("tiktoken") is None:

        class _Encoding(_ByteTokenizer):
            eot_token = n_vocab = 50256

            def __init__(self):
                super().__init__(offset=0, eos_token_id=50256)

            def decode_bytes(self, ids):
                return bytes(i for i in ids if i < 256)

        stub_module("tiktoken", get_encoding=lambda name: _Encoding())


def pytest_standin() -> None:
    """`pytest` where absent: a module that defines its tests at import (pytest.mark.parametrize
    decorators) imports it; the stand-in's marks return the function unchanged."""
    import importlib.util

    if importlib.util.find_spec("pytest") is not None:
        return

    class _Mark:
        def __getattr__(self, name):
            return lambda *args, **kwargs: _identity_decorator

    stub_module("pytest", mark=_Mark(), skip=_noop, fixture=_identity_decorator)


def gptoss_triton_attention() -> None:
    """Make `import gpt_oss.triton.attention` work with torch + triton only: gpt_oss/__init__.py
    is empty, gpt_oss/triton/__init__.py too; attention.py imports pytest at module level (its
    test_eq is defined there), a stand-in where absent. The kernel, its autograd Function and
    attention_ref run unchanged."""
    pytest_standin()


def _einops_pack(tensors, pattern: str):
    """einops.pack: the axes at `*` of each tensor flattened into one, the tensors concatenated
    along it; returns (packed, packed_shapes)."""
    import math

    import torch

    names = pattern.split()
    i = names.index("*")
    n_after = len(names) - i - 1
    flat, shapes = [], []
    for t in tensors:
        star = tuple(t.shape[i : t.ndim - n_after])
        shapes.append(star)
        flat.append(t.reshape(*t.shape[:i], math.prod(star), *t.shape[t.ndim - n_after :]))
    return torch.cat(flat, dim=i), shapes


def _einops_unpack(packed, packed_shapes, pattern: str):
    """einops.unpack: the inverse of _einops_pack."""
    import math

    names = pattern.split()
    i = names.index("*")
    sizes = [math.prod(s) for s in packed_shapes]
    parts = packed.split(sizes, dim=i)
    return [p.reshape(*p.shape[:i], *s, *p.shape[i + 1 :]) for p, s in zip(parts, packed_shapes)]


def einops_layers_standin() -> None:
    """einops_full_standin() plus pack / unpack and the einops.layers.torch modules (Rearrange,
    Reduce) on the stand-in, only where einops is not installed."""
    einops_full_standin()
    mod = sys.modules.get("einops")
    if mod is None or not getattr(mod, "__kx_stub__", False):
        return
    mod.pack, mod.unpack = _einops_pack, _einops_unpack
    import torch

    class Rearrange(torch.nn.Module):
        def __init__(self, pattern, **sizes):
            super().__init__()
            self.pattern, self.sizes = pattern, sizes

        def forward(self, x):
            return _einops_rearrange(x, self.pattern, **self.sizes)

    class Reduce(torch.nn.Module):
        def __init__(self, pattern, reduction, **sizes):
            super().__init__()
            self.pattern, self.reduction, self.sizes = pattern, reduction, sizes

        def forward(self, x):
            return _einops_reduce(x, self.pattern, self.reduction, **self.sizes)

    stub_module("einops.layers.torch", Rearrange=Rearrange, Reduce=Reduce)


def colt5_package() -> None:
    """Make `import colt5_attention` (lucidrains/CoLT5-attention) work with torch + triton only:
    einops (rearrange, repeat, pack, unpack, layers.torch) and packaging (the Triton version
    check in triton_coor_descent.py, attend.py) where absent are einops_layers_standin() and
    packaging_standin(); transformer_block.py imports LocalMHA from lucidrains' local-attention
    package at module level, used only by the routed attention classes with a local light branch
    (not by ConditionalRoutedViT): an inert stand-in where absent. The package runs unchanged."""
    import importlib.util

    einops_layers_standin()
    packaging_standin()
    if importlib.util.find_spec("local_attention") is None:
        stub_module("local_attention", LocalMHA=_Anything)
