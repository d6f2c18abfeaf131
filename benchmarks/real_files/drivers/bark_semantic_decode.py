"""Corpus driver (kx's code): suno-ai/bark's text-to-semantic GPT (bark/model.py: GPT.forward with
merge_context (the 256 text-token embeddings summed with the 256 semantic-history embeddings,
then the infer token), learned positions offset by the cached length, CausalSelfAttention with
a past_kv tuple per layer concatenated along time, SDPA with is_causal only on the prompt pass,
logits for the last position only) driven by the decode loop of generate_text_semantic
(bark/generation.py, use_kv_caching=True: prompt once, then one token per step with the cache
passed back, logits cut to the 10,000 semantic tokens + the eos pad token, temperature 0.7
sampling, stop on eos) written out here (its tokenizer and checkpoint loading need downloads):
Bark's small text model shape (12 layers, d 768, 12 heads, input vocab 129,600, output 10,048)
with random weights, batch 1, 256 new semantic tokens (eos masked out so every step runs). The
last step's logits are checked against a no-cache forward over the whole generated context."""

import _corpus12_support as S
import torch

S.bare_package("bark")  # not its __init__ (api / generation: encodec, transformers, hub downloads)
from bark.model import GPT, GPTConfig  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
LAYERS, D, HEADS, IN_VOCAB, OUT_VOCAB = S.pick((12, 768, 12, 129_600, 10_048), (2, 64, 4, 129_600, 10_048))
NEW = S.pick(256, 12)
TEXT_OFFSET, SEM_VOCAB, SEM_PAD, TEXT_PAD, INFER = 10_048, 10_000, 10_000, 129_595, 129_599

model = GPT(
    GPTConfig(
        n_layer=LAYERS,
        n_embd=D,
        n_head=HEADS,
        input_vocab_size=IN_VOCAB,
        output_vocab_size=OUT_VOCAB,
        block_size=1024,
        bias=False,
    )
).to(dev)
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
model.eval()

text = torch.full((256,), TEXT_PAD, dtype=torch.long)
text[:180] = torch.randint(0, 119_547, (180,)) + TEXT_OFFSET  # a 180-token prompt, padded
history = torch.full((256,), SEM_PAD, dtype=torch.long)
history[:100] = torch.randint(0, SEM_VOCAB, (100,))  # a speaker prompt's semantic history
x = torch.cat([text, history, torch.tensor([INFER])])[None].to(dev)
gen = torch.Generator(device=dev).manual_seed(0)

kv_cache, x_input = None, x
with torch.inference_mode():
    for step in range(NEW):
        logits, kv_cache = model(x_input, merge_context=True, use_cache=True, past_kv=kv_cache)
        relevant = torch.hstack((logits[0, 0, :SEM_VOCAB], logits[0, 0, [SEM_PAD]]))
        relevant[-1] = float("-inf")  # never stop early
        probs = torch.softmax(relevant / 0.7, dim=-1)
        item_next = torch.multinomial(probs, num_samples=1, generator=gen)
        last_logits = logits[0, 0]
        x = torch.cat((x, item_next[None]), dim=1)
        x_input = x[:, [-1]]
    full, _ = model(x[:, :-1], merge_context=True)  # no cache: the context of the last step
print(
    f"{NEW} tokens, cache length {kv_cache[0][0].shape[-2]}: last step vs no-cache rel err {S.rel_err(last_logits, full[0, 0]):.1e}"
)
torch.cuda.synchronize()
print("bark_semantic_decode ok")
