"""Corpus driver (kx's code): vLLM's punica LoRA Triton ops, lora_shrink and lora_expand,
called as torch.ops.vllm.* (registered by direct_register_custom_op with the CUDA dispatch
key), on 3 slices (q/k/v) of 4 rank-16 adapters with LoRAKernelMeta's token grouping."""

import _corpus_support
import torch

_corpus_support.vllm_package()
root = _corpus_support.find_on_path("vllm/lora/ops/triton_ops")
_corpus_support.bare_package(
    "vllm.lora.ops.triton_ops", root
)  # its __init__ pulls fused_moe_lora (distributed)
from vllm.lora.ops.triton_ops.lora_expand_op import lora_expand  # noqa: E402
from vllm.lora.ops.triton_ops.lora_kernel_metadata import LoRAKernelMeta  # noqa: E402
from vllm.lora.ops.triton_ops.lora_shrink_op import lora_shrink  # noqa: E402

torch.manual_seed(0)
T, H, R, LORAS = 384, 4096, 16, 4
slices = (4096, 1024, 1024)  # q, k, v output widths
x = torch.randn(T, H, device="cuda", dtype=torch.bfloat16)
lora_a = [torch.randn(LORAS, R, H, device="cuda", dtype=torch.bfloat16) for _ in slices]
lora_b = [torch.randn(LORAS, n, R, device="cuda", dtype=torch.bfloat16) for n in slices]
mapping = torch.randint(-1, LORAS, (T,), device="cuda", dtype=torch.int32)
meta = LoRAKernelMeta.make(max_loras=LORAS, max_num_tokens=T, device="cuda")
meta.prepare_tensors(mapping)
shrunk = torch.zeros(len(slices), T, R, device="cuda", dtype=torch.float32)
lora_shrink(x, lora_a, shrunk, *meta.meta_args(token_nums=T, specialize_active_lora=False), 0.5)
y = torch.zeros(T, sum(slices), device="cuda", dtype=torch.bfloat16)
lora_expand(
    shrunk.to(torch.bfloat16),
    lora_b,
    y,
    *meta.meta_args(token_nums=T, specialize_active_lora=True),
    offset_start=0,
    add_inputs=True,
)
torch.cuda.synchronize()
print("vllm lora shrink/expand ok", tuple(y.shape))
