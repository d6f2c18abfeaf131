"""Corpus driver (kx's code): karpathy/nano-llama31's Llama 3.1 (llama31.py: Transformer with
RMSNorm, scaled RoPE (apply_scaling, use_scaled_rope), grouped-query Attention with a KVCache
module per layer (cache_k / cache_v buffers written at start_pos, sliced to start_pos + seqlen),
repeat_kv, SwiGLU; forward_inference builds a causal mask offset by start_pos for multi-token
inputs) generated with the repo's own Llama.generate (decode loop, @torch.inference_mode:
ragged prompts padded with pad_id, the first step prefilling up to the shortest prompt, then one
position per step, prompt tokens kept where present, temperature 0.6 + top-p 0.9 sampling
(sample_top_p: sort, cumsum, multinomial with a torch.Generator), an eos check read back on the
host every step (`all(eos_reached)`)), on a Llama-3.2-1B-shaped model (d 2048, 16 layers, 32
heads, 8 kv heads, vocab 128,256, rope theta 500,000, scaled rope) with random bf16 weights:
4 prompts of 64..96 tokens, 32 new tokens. The tokenizer is a stand-in carrying only pad / stop
ids (no text: tiktoken and fire are not on the run machines, _corpus11_support); the last
sequence is checked against a greedy re-run (temperature 0) cached vs a full forward."""

import _corpus11_support as S
import torch

S.install_tiktoken_fire_standin()
from llama31 import Llama, ModelArgs, Transformer  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DIM, LAYERS, HEADS, KV, VOCAB = S.pick((2048, 16, 32, 8, 128256), (64, 2, 4, 2, 512))
PROMPTS, NEW = S.pick(([64, 80, 96, 72], 32), ([5, 7, 6], 4))

args = ModelArgs(
    dim=DIM, n_layers=LAYERS, n_heads=HEADS, n_kv_heads=KV, vocab_size=VOCAB, multiple_of=256 if DIM >= 256 else 16,
    ffn_dim_multiplier=1.5, rope_theta=500000.0, use_scaled_rope=True, max_batch_size=len(PROMPTS),
    max_seq_len=max(PROMPTS) + NEW,
)
torch.set_default_dtype(torch.bfloat16)  # Llama.build sets a bf16 default tensor type the same way
with torch.device(dev):
    model = Transformer(args)
torch.set_default_dtype(torch.float32)
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
model.eval()
llama = Llama(model, S.IdTokenizer(VOCAB))

prompts = [torch.randint(0, VOCAB, (n,)).tolist() for n in PROMPTS]
rng = torch.Generator(device=dev).manual_seed(1)
out = llama.generate(prompts, sample_rng=rng, max_gen_len=NEW, temperature=0.6, top_p=0.9)
print("sampled", [len(t) for t in out], "first tokens", [t[:4] for t in out])

greedy = llama.generate(prompts, sample_rng=rng, max_gen_len=NEW, temperature=0.0)
seq = prompts[-1] + greedy[-1]
with torch.inference_mode():
    full = model.forward_inference(torch.tensor([seq[:-1]], device=dev), 0)  # no cache: start_pos 0
agree = (full[0, len(prompts[-1]) - 1 :].argmax(-1).tolist() == greedy[-1]) if len(greedy[-1]) == NEW else None
print("greedy", len(greedy[-1]), "tokens; cached decode agrees with a full forward:", agree)
torch.cuda.synchronize()
print("nano-llama31 decode ok")
