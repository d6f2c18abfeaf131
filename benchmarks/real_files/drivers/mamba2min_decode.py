"""Corpus driver (kx's code): tommyip/mamba2-minimal's single-file Mamba-2 (mamba2.py:
Mamba2LMHeadModel.forward with a list of InferenceCache per layer; the chunked SSD scan (ssd,
segsum: cumsum / exp / masked tril / einsums over chunks of 64, inter-chunk state recurrence)
for the prompt, then Mamba2.step for one token at a time: the conv state rolled and updated in
place, the SSM state advanced with exp(dt * A) and an outer product, gated RMSNorm) generated
as Mamba2LMHeadModel.generate does it (prompt forwarded in whole chunks, one-token steps
afterwards, the cache carried between steps), batched: a 130M-shaped model (d 768, 24 layers,
d_state 128, headdim 64, vocab 50,288) with random weights, 4 prompts of 256 tokens, 64 greedy
new tokens (argmax on the host each step). The generated sequences are then run through one
full chunked forward (320 tokens = 5 chunks) and every decode step's logits are compared with
it."""

import _corpus12_support as S
import torch
from mamba2 import InferenceCache, Mamba2Config, Mamba2LMHeadModel

torch.manual_seed(0)
dev = "cuda"
D, LAYERS, VOCAB = S.pick((768, 24, 50288), (64, 2, 256))
B, PROMPT, NEW, CHUNK = S.pick((4, 256, 64, 64), (2, 16, 16, 16))

args = Mamba2Config(d_model=D, n_layer=LAYERS, vocab_size=VOCAB, chunk_size=CHUNK, d_state=S.pick(128, 16))
model = Mamba2LMHeadModel(args, device=dev)
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith(("A_log", "D", "dt_bias")) or "norm" in name:
            continue  # keep the repo's initialisation of the SSM parameters and norms
        p.normal_(0, 0.02)
    for layer in model.backbone.layers:  # A in [-16, -1], dt around 1e-2, as Mamba-2 initialises them
        layer.mixer.A_log.uniform_(0.0, 2.77)
        layer.mixer.dt_bias.fill_(-4.6)
model.eval()

prompt = torch.randint(0, VOCAB, (B, PROMPT), device=dev)
step_logits = []
with torch.no_grad():
    logits, h = model(prompt, None)  # PROMPT is a whole number of chunks
    tok = logits[:, -1].argmax(-1, keepdim=True)
    tokens = [tok]
    for _ in range(NEW - 1):
        logits, h = model(tok, h)
        step_logits.append(logits[:, -1])
        tok = logits[:, -1].argmax(-1, keepdim=True)
        tokens.append(tok)
    assert all(isinstance(c, InferenceCache) for c in h)
    seq = torch.cat([prompt] + tokens, 1)  # PROMPT + NEW tokens: a whole number of chunks
    full, _ = model(seq, None)
want = full[:, PROMPT : PROMPT + NEW - 1]
got = torch.stack(step_logits, 1)
agree = (got.argmax(-1) == want.argmax(-1)).float().mean().item()
print(
    f"{B} x ({PROMPT} + {NEW}) tokens: step logits vs full forward rel err {S.rel_err(got, want):.1e}, argmax agree {agree:.3f}"
)
torch.cuda.synchronize()
print("mamba2min_decode ok")
