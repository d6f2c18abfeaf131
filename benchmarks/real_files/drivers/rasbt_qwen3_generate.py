"""Corpus driver (kx's code): rasbt/LLMs-from-scratch's Qwen3 with a KV cache
(pkg/llms_from_scratch/kv_cache/qwen3.py and kv_cache/generate.py), run as ch05/11_qwen3's README
"Pro tip 1 + 2" does: `model = Qwen3Model(QWEN_CONFIG_06_B)`, `model.to(device)`,
`model = torch.compile(model)`, then generate_text_simple(model, idx, max_new_tokens) with the
cache: a prefill of the prompt, then one compiled forward per new token (greedy argmax, the
Python KVCache list of per-layer (K, V) grown by torch.cat, the model's current_pos an int
attribute bumped every step: guards on it, recompiles and dynamic shapes), under no_grad; then
the batched-cache variant (pkg/llms_from_scratch/kv_cache_batched: per-row start_pos tensors,
pre-allocated caches) compiled the same way for a batch of 2 prompts. Qwen3-0.6B's config
(vocab 151936, d 1024, 16 query / 8 KV heads of 128, QK-norm, RoPE base 1e6, bf16) at 6 layers
and context 4096, random weights, random prompt token ids (the tokenizer is a downloaded
tokenizer.json); 32 and 16 new tokens. `requests` (the weight download, imported at module
level) is a stand-in."""

import _corpus5_support
import torch

_corpus5_support.stub_any("requests")
from llms_from_scratch.kv_cache.generate import generate_text_simple  # noqa: E402
from llms_from_scratch.kv_cache.qwen3 import QWEN_CONFIG_06_B, Qwen3Model  # noqa: E402
from llms_from_scratch.kv_cache_batched.generate import (  # noqa: E402
    generate_text_simple as generate_text_batched,
)
from llms_from_scratch.kv_cache_batched.qwen3 import Qwen3Model as Qwen3ModelBatched  # noqa: E402

torch.manual_seed(123)
cfg = dict(QWEN_CONFIG_06_B, n_layers=6, context_length=4096)
device = torch.device("cuda")

model = Qwen3Model(cfg)
model.to(device)
model = torch.compile(model)
idx = torch.randint(0, cfg["vocab_size"], (1, 37), device=device)
out = generate_text_simple(model=model, idx=idx, max_new_tokens=32)
print("kv cache:", out.shape, out[0, -8:].tolist())

torch.manual_seed(123)
model_b = Qwen3ModelBatched(cfg)
model_b.to(device)
model_b = torch.compile(model_b)
idx_b = torch.randint(0, cfg["vocab_size"], (2, 53), device=device)
out_b = generate_text_batched(model=model_b, idx=idx_b, max_new_tokens=16)
torch.cuda.synchronize()
print("rasbt qwen3 kv-cache generate ok", tuple(out_b.shape), out_b[:, -4:].tolist())
