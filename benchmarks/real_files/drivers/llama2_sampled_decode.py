"""Corpus driver (kx's code): meta-llama/llama's Llama 2 inference code as in
llama2_compiled_decode (llama/model.py's Transformer with per-layer KV caches; the RMSNorms and
SwiGLU feed-forward of each layer and the final norm under torch.compile, dynamic=True; fairscale
and tokenizer stand-ins from _corpus15_support, no eos so sizes are fixed), driven through
Llama.generate's sampling branch: temperature 0.6 softmax and sample_top_p (sort, cumsum, mask,
renormalize, torch.multinomial, gather) with logprobs=True (per-step cross_entropy of the
generated tokens into token_logprobs) and echo=True, at a Llama-2-style 4-layer width-2048 fp16
config with random weights and 8 prompts of different lengths. The sampled tokens are random but
every size is fixed. Checked against the eager model: the log-probabilities generate returns for
the generated tokens match a teacher-forced eager log_softmax on the returned sequence."""

import _corpus15_support as S
import torch

S.install_fairscale_standin()
from llama.generation import Llama  # noqa: E402
from llama.model import ModelArgs, Transformer  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
dtype = S.pick(torch.float16, torch.float32)
args = ModelArgs(
    **S.pick(
        dict(
            dim=2048,
            n_layers=4,
            n_heads=16,
            n_kv_heads=4,
            vocab_size=32000,
            max_batch_size=8,
            max_seq_len=256,
        ),
        dict(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, max_batch_size=2, max_seq_len=32),
    )
)
PROMPT_LENS = S.pick((16, 20, 24, 28, 32, 36, 40, 44), (5, 7))
MAX_GEN = S.pick(48, 6)

torch.set_default_dtype(dtype)
with torch.inference_mode():  # generate and forward run under inference_mode: build the model there too
    model = Transformer(args).to(dev)
    for p in model.parameters():
        p.normal_(0.0, 0.02)
torch.set_default_dtype(torch.float32)
eager = {}
for layer in model.layers:
    for name in ("attention_norm", "ffn_norm", "feed_forward"):
        eager[layer, name] = getattr(layer, name)
        setattr(layer, name, torch.compile(getattr(layer, name), dynamic=True))
eager[model, "norm"] = model.norm
model.norm = torch.compile(model.norm, dynamic=True)
generator = Llama(model, S.GreedyTokenizerStandin())

g = torch.Generator().manual_seed(1)
prompts = [torch.randint(2, args.vocab_size, (n,), generator=g).tolist() for n in PROMPT_LENS]
torch.manual_seed(2)
out_tokens, out_logprobs = generator.generate(
    prompts, max_gen_len=MAX_GEN, temperature=0.6, top_p=0.9, logprobs=True, echo=True
)
print(f"generated {[len(t) for t in out_tokens]} tokens per prompt (echo: prompt included)")
assert all(len(t) == len(p) + MAX_GEN for t, p in zip(out_tokens, prompts))


def eager_model_forward(seq):
    compiled = {key: getattr(*key) for key in eager}
    for (owner, name), mod in eager.items():
        setattr(owner, name, mod)
    try:
        return model.forward(seq, 0)
    finally:
        for (owner, name), mod in compiled.items():
            setattr(owner, name, mod)


worst = 0.0
for prompt, toks, lps in zip(prompts, out_tokens, out_logprobs):
    seq = torch.tensor([toks], device=dev)
    with torch.inference_mode():
        logp = torch.log_softmax(eager_model_forward(seq)[0, :-1].float(), -1)
    want = logp.gather(-1, seq[0, 1:, None])[:, 0][len(prompt) - 1 :]
    got = torch.tensor(lps[len(prompt) : len(prompt) + MAX_GEN], device=dev)
    worst = max(worst, (got - want).abs().max().item())
print(f"returned log-probabilities vs eager teacher-forced log_softmax: worst abs diff {worst:.1e}")
assert worst < 5e-2, worst
torch.cuda.synchronize()
print("llama2_sampled_decode ok")
