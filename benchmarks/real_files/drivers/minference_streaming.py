"""Corpus driver (kx's code): MInference's StreamingLLM / A-shape and tri-shape prefill
attention (minference/ops/streaming_kernel.py): a_shape_kernel and tri_shape_kernel with
MInference's attn_forward_config (n_init sink tokens, n_local window, n_last dense rows) ->
TritonMultiStageDotProductionAttention, whose _forward launches _attn_fwd (autotuned over 10
num_stages/num_warps configs keyed on N_CTX, with IS_EVEN_M / IS_EVEN_N heuristics, inside a
try/except triton.OutOfResources that halves the block sizes) twice per call: the sliding
window pass and the complementary sink-token pass (END / INIT / COMPLEMENT_SLIDING_WINDOW
constexprs). Shapes: Llama-3-8B-like heads after repeat_kv (1, 32, 6000, 128) fp16 with
n_init 128 / n_local 3968 (MInference's defaults); a head_dim-96 call (padded to 128 inside);
the tri-shape with n_last 100; and streaming_forward with a short window (1, 8, 1000, 64)."""

import _corpus_support
import torch

_corpus_support.minference_ops()
from minference.ops.streaming_kernel import a_shape_kernel, streaming_forward, tri_shape_kernel  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
cfg = {"attn_forward_config": {"n_init": 128, "n_local": 3968}}

q, k, v = (torch.randn(1, 32, 6000, 128, dtype=torch.float16, device=dev) for _ in range(3))
o1 = a_shape_kernel(q, k, v, cfg)

q, k, v = (torch.randn(1, 16, 4500, 96, dtype=torch.float16, device=dev) for _ in range(3))
o2 = a_shape_kernel(q, k, v, cfg)

q, k, v = (torch.randn(1, 32, 5000, 128, dtype=torch.float16, device=dev) for _ in range(3))
o3 = tri_shape_kernel(q, k, v, {"attn_forward_config": {"n_init": 64, "n_local": 1024, "n_last": 100}})

q, k, v = (torch.randn(1, 8, 1000, 64, dtype=torch.bfloat16, device=dev) for _ in range(3))
o4 = streaming_forward(q, k, v, n_init=4, n_local=256)
torch.cuda.synchronize()
print("minference streaming ok", tuple(o1.shape), tuple(o2.shape), tuple(o3.shape), tuple(o4.shape))
