"""Corpus driver (kx's code): mistral-src's Mixtral one-file reference (moe_one_file_ref.py:
Transformer with a lazily allocated KV cache per Attention (get_caches, in the model's dtype),
rotary embeddings cached on the module, and MoeLayer: a linear gate, top-2 of 8 experts, softmax
over the two weights, then a Python loop over the experts with torch.where(selected_experts == i)
gathering each expert's tokens) decoding with the file's generate() (prefill, then a token at a
time, greedy), the model wrapped in torch.compile. Mixtral-8x7B's widths (dim 4096, 32 / 8 heads
of 128, expert hidden 14336, 8 experts, top 2, vocab 32000) at 2 of its 32 layers, random
float16 weights, three prompts, decoding up to position 40 (this generate()'s max_tokens is a
position, unlike one_file_ref's count), a word-hash tokenizer standing in for
mistral_common's; the compiled run's log-probs are checked against the eager model's."""

import _corpus17_support as S
import torch

S.install_mistral_standins()
import moe_one_file_ref as M  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
args = S.pick(
    M.ModelArgs(
        dim=4096,
        n_layers=2,
        head_dim=128,
        hidden_dim=14336,
        n_heads=32,
        n_kv_heads=8,
        norm_eps=1e-5,
        vocab_size=32000,
        moe=M.MoeArgs(num_experts=8, num_experts_per_tok=2),
        max_batch_size=3,
        max_seq_len=4096,
    ),
    M.ModelArgs(
        dim=64,
        n_layers=2,
        head_dim=16,
        hidden_dim=96,
        n_heads=4,
        n_kv_heads=2,
        norm_eps=1e-5,
        vocab_size=256,
        moe=M.MoeArgs(num_experts=4, num_experts_per_tok=2),
        max_batch_size=3,
        max_seq_len=64,
    ),
)
MAX_TOKENS = S.pick(40, 12)  # this file's generate() reads it as the last position, not a count
torch.set_default_device(dev)
model = M.Transformer(args)
torch.set_default_device("cpu")
for p in model.parameters():
    torch.nn.init.normal_(p, std=0.02) if p.ndim > 1 else None
model = model.to(device=dev, dtype=torch.float16)
tokenizer = S.WordTokenizerStandin(args.vocab_size)
prompts = [
    "This is a test",
    "This is another test",
    "This is a third test, mistral AI is very good at testing. ",
]

res, logprobs = M.generate(prompts, torch.compile(model), tokenizer, max_tokens=MAX_TOKENS)
for layer in model.layers.values():  # fresh caches for the eager run
    layer.attention._cache_k = layer.attention._cache_v = None
res_e, logprobs_e = M.generate(prompts, model, tokenizer, max_tokens=MAX_TOKENS)
n_pre = min(len(tokenizer.encode(p)) for p in prompts) - 1
err = S.rel_err(logprobs[:, : n_pre + 1], logprobs_e[:, : n_pre + 1])
same = sum(a == b for a, b in zip(res, res_e))
print(
    f"{len(prompts)} prompts, up to position {MAX_TOKENS}: logprobs {tuple(logprobs.shape)}, prefill+first rel err {err:.1e}, "
    f"{same}/{len(res)} completions identical to eager"
)
assert logprobs.shape == logprobs_e.shape and torch.isfinite(logprobs).all() and err < 2e-2, err
torch.cuda.synchronize()
print("mistral_moe_compile_generate ok")
