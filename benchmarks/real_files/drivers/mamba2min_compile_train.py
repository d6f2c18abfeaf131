"""Corpus driver (kx's code): tommyip/mamba2-minimal's Mamba-2 language model (mamba2.py:
Mamba2LMHeadModel / Mamba2 / ssd / segsum / RMSNorm: in-projection split into z, xBC, dt, the
depthwise causal conv1d, softplus dt, the chunked SSD (cumsum-based segment sums, exp, tril
masks, four einsums, the inter-chunk state recurrence over chunk boundaries), the gated
RMSNorm and a tied LM head) trained with torch.compile: a 12-layer model (d 768, d_state 128,
headdim 64, chunk 64, vocab 50,288) with random weights, batch 4 x 512 tokens, next-token
cross-entropy, AdamW (lr 3e-4), 6 steps of compiled forward + backward + step, then the compiled
loss vs the eager loss on a new batch."""

import _corpus12_support as S
import torch
from mamba2 import Mamba2Config, Mamba2LMHeadModel

torch.manual_seed(0)
dev = "cuda"
D, LAYERS, VOCAB, DSTATE = S.pick((768, 12, 50288, 128), (64, 2, 256, 16))
B, T, CHUNK, STEPS = S.pick((4, 512, 64, 6), (2, 32, 16, 2))

model = Mamba2LMHeadModel(
    Mamba2Config(d_model=D, n_layer=LAYERS, vocab_size=VOCAB, d_state=DSTATE, chunk_size=CHUNK), device=dev
)
with torch.no_grad():
    for name, p in model.named_parameters():
        if not name.endswith(("A_log", "D", "dt_bias")) and "norm" not in name:
            p.normal_(0, 0.02)
    for layer in model.backbone.layers:
        layer.mixer.A_log.uniform_(0.0, 2.77)
        layer.mixer.dt_bias.fill_(-4.6)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)


def loss_fn(x, y):
    logits, _ = model(x)
    return torch.nn.functional.cross_entropy(logits.float().flatten(0, 1), y.flatten())


compiled_loss = torch.compile(loss_fn)


def batch():
    tokens = torch.randint(0, VOCAB, (B, T + 1), device=dev)
    return tokens[:, :-1], tokens[:, 1:]


for step in range(STEPS):
    x, y = batch()
    loss = compiled_loss(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

x, y = batch()
with torch.no_grad():
    got, want = compiled_loss(x, y), loss_fn(x, y)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("mamba2min_compile_train ok")
