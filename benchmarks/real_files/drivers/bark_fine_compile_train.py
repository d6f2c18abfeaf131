"""Corpus driver (kx's code): suno-ai/bark's fine acoustic model (bark/model_fine.py: FineGPT:
8 codebook embeddings (7 tied to the 7 LM heads), the embeddings of codebooks 0..pred_idx summed,
learned positions, non-causal FineBlocks (NonCausalSelfAttention via SDPA, GELU MLP), one LM head
per predicted codebook) trained with torch.compile: Bark's fine model shape (12 layers, d 768,
12 heads, vocab 1,056, 8 codebooks, block 1024) with random weights, batch 4 x 1024 frames of
random EnCodec codes, the predicted codebook cycling over 1..3 (one compiled graph each:
pred_idx is a Python int), cross-entropy on that codebook, AdamW, 6 steps of compiled forward +
backward + step, then the compiled loss vs the eager loss on a new batch."""

import _corpus12_support as S
import torch

S.bare_package("bark")  # not its __init__ (api / generation: encodec, transformers, hub downloads)
from bark.model_fine import FineGPT, FineGPTConfig  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
LAYERS, D, HEADS = S.pick((12, 768, 12), (2, 64, 4))
B, T, STEPS = S.pick((4, 1024, 6), (2, 32, 3))

model = FineGPT(
    FineGPTConfig(
        n_layer=LAYERS,
        n_embd=D,
        n_head=HEADS,
        input_vocab_size=1056,
        output_vocab_size=1056,
        block_size=1024,
        bias=False,
    )
).to(dev)
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)


def loss_fn(pred_idx, codes):
    logits = model(pred_idx, codes)
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), codes[:, :, pred_idx].flatten())


compiled_loss = torch.compile(loss_fn)
for step in range(STEPS):
    codes = torch.randint(0, 1024, (B, T, 8), device=dev)
    pred_idx = 1 + step % 3
    loss = compiled_loss(pred_idx, codes)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} codebook {pred_idx} loss {loss.item():.4f}")

codes = torch.randint(0, 1024, (B, T, 8), device=dev)
with torch.no_grad():
    got, want = compiled_loss(2, codes), loss_fn(2, codes)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("bark_fine_compile_train ok")
