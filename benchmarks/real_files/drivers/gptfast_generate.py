"""Corpus driver (kx's code): gpt-fast generation with a KV cache, decode_one_token under
torch.compile(mode="reduce-overhead", fullgraph=True) and prefill under torch.compile(dynamic=True).

What generate.py's main() does with --compile --compile_prefill and a synthetic integer prompt
(its inductor settings, coordinate_descent_tuning among them, are set when generate.py is
imported): a small Llama-style Transformer from model.py (4 layers, dim 512, GQA 8 query /
2 kv heads, random bf16 weights made on the GPU), the compiled prefill and decode step put in
place of generate.prefill / generate.decode_one_token as main() does through `global`, then a
warm-up generation (i = -1) and two timed ones: batch of 2, top_k 200, temperature 0.8.
"""

import torch
from _corpus_support import stub_module

# generate.py imports tokenizer.py (sentencepiece, tiktoken); a synthetic prompt needs no tokenizer
stub_module("tokenizer", get_tokenizer=lambda tokenizer_path, model_name: None)

import generate as gen  # noqa: E402
from model import ModelArgs, Transformer  # noqa: E402

device = "cuda"
precision = torch.bfloat16
config = ModelArgs(block_size=2048, vocab_size=32000, n_layer=4, n_head=8, n_local_heads=2, dim=512)
with torch.device(device):
    model = Transformer(config)
model = model.to(device=device, dtype=precision).eval()

prompt_length, max_new_tokens, batch_size = 16, 32, 2
encoded = torch.randint(0, 1024, (prompt_length,), device=device, dtype=torch.int64)
torch.manual_seed(1234)

gen.decode_one_token = torch.compile(gen.decode_one_token, mode="reduce-overhead", fullgraph=True)
gen.prefill = torch.compile(gen.prefill, fullgraph=True, dynamic=True)

for i in range(-1, 2):
    gen.device_sync(device=device)
    y, metrics = gen.generate(
        model,
        encoded,
        max_new_tokens,
        batch_size=batch_size,
        draft_model=None,
        speculate_k=5,
        interactive=False,
        callback=lambda x: x,
        temperature=0.8,
        top_k=200,
    )
    print(f"sample {i}: {y[0, -8:].tolist()}")
torch.cuda.synchronize()
print("gpt-fast generate ok", tuple(y.shape))
