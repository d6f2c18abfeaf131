"""Corpus driver (kx's code): LitGPT's generation, `litgpt generate <checkpoint> --compile true`
(litgpt/generate/base.py: main()'s flow) for a 4-layer TinyLlama-1.1B config (n_embd 2048, 32
heads, 4 query groups, LLaMAMLP 5632, RMSNorm, vocab 32000) with random weights in place of
the checkpoint: the model built on the GPU in bf16 (precision bf16-true, what
get_default_supported_precision(training=False) answers on an H200), max_seq_length = prompt +
max_new_tokens, set_kv_cache(batch_size=1), eval(); then as main() does with compile=True:
torch._dynamo.config.automatic_dynamic_shapes = True,
torch._inductor.config.triton.unique_kernel_names = True,
torch._inductor.config.coordinate_descent_tuning = True, and base.next_token =
torch.compile(next_token, mode="reduce-overhead") (CUDA graphs); L.seed_everything(1234)
(torch.manual_seed here); generate(model, encoded, max_returned_tokens, temperature 0.8,
top_k 50, top_p 1.0, eos_id 2) with main()'s defaults: prefill of a 14-token prompt then 50
decode steps through generate_fn's loop (token.item() each step, input_pos / input_pos_maxp1
advancing: recompiles with dynamic shapes), KVCache.forward's index_copy_, the sampler's
top-k and the CUDA-graph-friendly exponential_ multinomial. Two samples (num_samples=2,
kv caches reset between them as main() does). The tokenizer is the one stand-in (random
prompt ids); lightning and friends are stood in by litgpt_package()."""

import _corpus_support
import torch
import torch._dynamo.config
import torch._inductor.config

_corpus_support.litgpt_package()
import litgpt.generate.base as base  # noqa: E402
from litgpt.config import Config  # noqa: E402
from litgpt.model import GPT  # noqa: E402

dev = torch.device("cuda")
config = Config.from_name("tiny-llama-1.1b", n_layer=4)
prompt_length, max_new_tokens = 14, 50
max_returned_tokens = prompt_length + max_new_tokens

torch.set_default_dtype(torch.bfloat16)
with dev:
    model = GPT(config)
    model.max_seq_length = max_returned_tokens
    model.set_kv_cache(batch_size=1)
model.eval()
torch.set_default_dtype(torch.float32)

torch._dynamo.config.automatic_dynamic_shapes = True
torch._inductor.config.triton.unique_kernel_names = True
torch._inductor.config.coordinate_descent_tuning = True
base.next_token = torch.compile(base.next_token, mode="reduce-overhead")

torch.manual_seed(1234)
encoded = torch.randint(3, config.vocab_size, (prompt_length,), device=dev)
for i in range(2):
    y = base.generate(model, encoded, max_returned_tokens, temperature=0.8, top_k=50, top_p=1.0, eos_id=2)
    for block in model.transformer.h:
        block.attn.kv_cache.reset_parameters()
    print(f"sample {i}: {y.size(0) - prompt_length} tokens generated")
torch.cuda.synchronize()
print("litgpt generate ok", tuple(y.shape))
