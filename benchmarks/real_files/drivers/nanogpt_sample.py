"""Corpus driver (kx's code): nanoGPT GPT.generate() (token-by-token sampling) with the model compiled.

What sample.py does (eval mode, bf16 autocast, temperature 0.8, top_k 200, two samples) on a
small GPT-2-vocab model with random weights and a random prompt. sample.py's
`model = torch.compile(model)` returns a wrapper whose `.generate` is the plain module's
method, so its `self(idx_cond)` would run eagerly; the driver uses the in-place
`model.compile()` instead, so every step of generate() calls the compiled forward. The
sequence grows by one token a step (generate() re-runs the whole prefix: nanoGPT has no
KV cache): the first step compiles for the prompt length, the second recompiles with a
dynamic sequence length that the later steps reuse.
"""

from contextlib import nullcontext

import torch
from model import GPT, GPTConfig

seed = 1337
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device, device_type = "cuda", "cuda"
ctx = (
    nullcontext()
    if device_type == "cpu"
    else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
)

conf = GPTConfig(block_size=256, vocab_size=50304, n_layer=4, n_head=8, n_embd=512, dropout=0.0, bias=True)
model = GPT(conf)
model.eval()
model.to(device)
model.compile()

num_samples, max_new_tokens, temperature, top_k = 2, 24, 0.8, 200
x = torch.randint(0, 50257, (1, 12), dtype=torch.long, device=device)  # a random 12-token prompt
with torch.no_grad():
    with ctx:
        for _k in range(num_samples):
            y = model.generate(x, max_new_tokens, temperature=temperature, top_k=top_k)
            print(y[0].tolist()[-8:])
torch.cuda.synchronize()
print("nanogpt sample ok", tuple(y.shape))
