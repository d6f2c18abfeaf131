"""Corpus driver (kx's code): mistral-src's one-file reference (one_file_ref.py: Transformer with
grouped-query attention (32 query / 8 KV heads, repeat_interleave), complex rotary embeddings,
a float16 KV cache written by scatter_ at the positions and read back up to positions[-1].item() + 1,
a log-of-tril causal mask in prefill, RMSNorm, SwiGLU FeedForward) decoding with the file's own
generate(): prefill of the shortest prompt, then a token at a time (greedy argmax, prompt tokens
forced while they last), with the model wrapped in torch.compile. Mistral-7B's widths (dim 4096,
head_dim 128, hidden 14336, vocab 32000) at 4 of its 32 layers (its graph breaks at
every layer's .item() make compile time grow with depth), random float16 weights, three
prompts of different lengths as the file's demo uses, 32 new tokens; a word-hash tokenizer stands
in for mistral_common's. The compiled run's log-probs are checked against the eager model's."""

import _corpus17_support as S
import torch

S.install_mistral_standins()
import one_file_ref as M  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
args = S.pick(
    M.ModelArgs(
        dim=4096,
        n_layers=4,
        head_dim=128,
        hidden_dim=14336,
        n_heads=32,
        n_kv_heads=8,
        norm_eps=1e-5,
        vocab_size=32000,
        max_batch_size=3,
        max_seq_len=4096,
    ),
    M.ModelArgs(
        dim=64,
        n_layers=2,
        head_dim=16,
        hidden_dim=128,
        n_heads=4,
        n_kv_heads=2,
        norm_eps=1e-5,
        vocab_size=256,
        max_batch_size=3,
        max_seq_len=64,
    ),
)
MAX_TOKENS = S.pick(32, 4)
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
res_e, logprobs_e = M.generate(prompts, model, tokenizer, max_tokens=MAX_TOKENS)
n_pre = min(len(tokenizer.encode(p)) for p in prompts) - 1
err = S.rel_err(logprobs[:, : n_pre + 1], logprobs_e[:, : n_pre + 1])
same = sum(a == b for a, b in zip(res, res_e))
print(
    f"{len(prompts)} prompts, {MAX_TOKENS} new tokens: logprobs {tuple(logprobs.shape)}, prefill+first rel err {err:.1e}, "
    f"{same}/{len(res)} completions identical to eager"
)
print(res[0][:120])
assert logprobs.shape == logprobs_e.shape and torch.isfinite(logprobs).all() and err < 2e-2, err
torch.cuda.synchronize()
print("mistral_compile_generate ok")
