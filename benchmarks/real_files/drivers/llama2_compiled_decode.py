"""Corpus driver (kx's code): meta-llama/llama's Llama 2 inference code (llama/model.py's
Transformer: RMSNorm, rotary embeddings through complex freqs_cis, grouped-query attention with
repeat_kv over per-layer KV caches that forward writes in place, SwiGLU feed-forward; and
llama/generation.py's Llama.generate, the host-side decode loop: padded prompts of different
lengths, a prefill of the shortest prompt, one token per step, prompt tokens kept where the
prompt is longer, the stop test on eos) with each layer's RMSNorms and SwiGLU feed-forward and
the final norm under torch.compile (dynamic=True; compiling Transformer.forward itself fails in
AOTAutograd under generate's inference_mode: "Cannot set version_counter for inference tensor" at
the freqs_cis slice), at a Llama-2-style 6-layer width-2048 config in fp16 with random weights
built under inference_mode. fairscale's model-parallel layers are plain Linear /
Embedding stand-ins (world size 1) and the tokenizer a stand-in with no eos (so every prompt
decodes max_gen_len tokens: fixed sizes); greedy decoding (temperature 0). Checked against the
eager model: every generated token is the eager model's argmax (to within a small logit margin)
on the generated sequence, teacher-forced."""

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
            n_layers=6,
            n_heads=16,
            n_kv_heads=4,
            vocab_size=32000,
            max_batch_size=4,
            max_seq_len=256,
        ),
        dict(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, max_batch_size=2, max_seq_len=32),
    )
)
PROMPT_LENS = S.pick((24, 31, 40, 48), (5, 7))
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
out_tokens, _ = generator.generate(prompts, max_gen_len=MAX_GEN, temperature=0.0)
print(f"generated {[len(t) for t in out_tokens]} tokens per prompt")
assert all(len(t) == MAX_GEN for t in out_tokens)


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
for prompt, gen in zip(prompts, out_tokens):
    seq = torch.tensor([prompt + gen], device=dev)
    with torch.inference_mode():
        logits = eager_model_forward(seq)[0, len(prompt) - 1 : -1]
    chosen = logits.gather(-1, torch.tensor(gen, device=dev)[:, None])[:, 0]
    margin = (logits.max(-1).values - chosen) / logits.abs().max()
    worst = max(worst, margin.max().item())
print(f"greedy tokens vs eager teacher-forced argmax: worst relative logit margin {worst:.1e}")
assert worst < 2e-2, worst
torch.cuda.synchronize()
print("llama2_compiled_decode ok")
