"""Corpus driver (kx's code): meta-llama/llama3's reference model (llama/model.py: Transformer with
RMSNorm, complex-valued RoPE (precompute_freqs_cis / apply_rotary_emb), grouped-query Attention that
writes each step's keys / values into a preallocated KV cache (cache_k / cache_v sliced by
start_pos) and repeat_kv's the cache for the query heads, SwiGLU FeedForward; forward is
@torch.inference_mode and builds a causal mask only when more than one token comes in) run as
llama/generation.py runs it, with fairscale's model-parallel layers replaced by one-process
stand-ins: a Llama-3.2-1B-shaped model (d 2048, 16 layers, 32 heads, 8 kv heads, vocab 128,256)
with random bf16 weights, a batch of 4 prompts of 128 tokens prefilled, then 64 greedy decode
steps (one token per step, start_pos advancing: the cache slice bounds change every step), eager
(torch.compile of this inference_mode forward stopped on the CPU check with "Cannot set
version_counter for inference tensor"), and the last step's logits compared with a full forward
over the whole sequence."""

import _corpus10_support as S
import torch

S.install_fairscale_standin()
S.bare_package("llama")  # not its __init__ (generation.py: tiktoken tokenizer, torch.distributed setup)
from llama.model import ModelArgs, Transformer  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DIM, LAYERS, HEADS, KV, VOCAB = S.pick((2048, 16, 32, 8, 128256), (64, 2, 4, 2, 256))
BATCH, PROMPT, STEPS = S.pick((4, 128, 64), (2, 8, 3))

args = ModelArgs(
    dim=DIM,
    n_layers=LAYERS,
    n_heads=HEADS,
    n_kv_heads=KV,
    vocab_size=VOCAB,
    multiple_of=256 if DIM >= 256 else 16,
    ffn_dim_multiplier=1.5,
    max_batch_size=BATCH,
    max_seq_len=PROMPT + STEPS + 1,
)
torch.set_default_dtype(torch.bfloat16)  # generation.py sets a half default tensor type the same way
with torch.device(dev):
    model = Transformer(args)
torch.set_default_dtype(torch.float32)
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
model.eval()

prompt = torch.randint(0, VOCAB, (BATCH, PROMPT), device=dev)
logits = model(prompt, 0)
next_tok = logits[:, -1].argmax(-1)
print("prefill", tuple(prompt.shape), "first tokens", next_tok.tolist())

generated = [next_tok]
for step in range(STEPS):
    logits = model(next_tok[:, None], PROMPT + step)
    next_tok = logits[:, -1].argmax(-1)
    generated.append(next_tok)

# the cached decode against a full forward over the whole sequence (no cache reuse: start_pos 0)
full = model(torch.cat([prompt, torch.stack(generated[:-1], 1)], 1), 0)
print("last step cached vs full recompute", f"rel err {S.rel_err(logits[:, -1], full[:, -1]):.1e}")
out = torch.stack(generated, 1)
print("generated", tuple(out.shape), "sequence 0 tail", out[0, -8:].tolist())
torch.cuda.synchronize()
print("llama3 decode ok")
