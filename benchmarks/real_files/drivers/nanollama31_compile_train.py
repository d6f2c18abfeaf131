"""Corpus driver (kx's code): karpathy/nano-llama31's Llama 3.1 (llama31.py: Transformer.forward_loss
(embedding, RoPE from a freqs_cis buffer moved to the device on each call, a causal mask built
with torch.full / triu, the layers with start_pos -1 (no KV cache), RMSNorm, the head in fp32 and
cross-entropy with ignore_index), configure_optimizers (fused AdamW over all parameters)) fine-tuned
with torch.compile as the repo's finetuning loop does (main(): bf16 weights, lr 1e-5, B x T
batches, loss.backward, optimizer.step): a 6-layer Llama-3-shaped model (d 1024, 16 heads, 4 kv
heads, vocab 128,256, scaled RoPE) with random weights, batch 4 x 512 tokens, 8 steps of
forward + backward + step, the last 64 labels of each row ignored (-100), then the compiled loss
vs the eager loss on a new batch."""

import _corpus11_support as S
import torch

S.install_tiktoken_fire_standin()
from llama31 import ModelArgs, Transformer  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
DIM, LAYERS, HEADS, KV, VOCAB = S.pick((1024, 6, 16, 4, 128256), (64, 2, 4, 2, 512))
B, T, STEPS = S.pick((4, 512, 8), (2, 16, 2))

args = ModelArgs(
    dim=DIM, n_layers=LAYERS, n_heads=HEADS, n_kv_heads=KV, vocab_size=VOCAB, multiple_of=256 if DIM >= 256 else 16,
    rope_theta=500000.0, use_scaled_rope=True, max_batch_size=B, max_seq_len=T,
)
torch.set_default_dtype(torch.bfloat16)  # main() loads the model under a bf16 default tensor type
with torch.device(dev):
    model = Transformer(args)
torch.set_default_dtype(torch.float32)
with torch.no_grad():
    for p in model.parameters():
        p.normal_(0, 0.02)
model.train()
optimizer = model.configure_optimizers(learning_rate=1e-5, weight_decay=0.0, device_type="cuda")
compiled_loss = torch.compile(model.forward_loss)


def batch():
    tokens = torch.randint(0, VOCAB, (B, T + 1), device=dev)
    x, y = tokens[:, :-1], tokens[:, 1:].clone()
    y[:, -T // 8 :] = -100  # padding positions, ignored
    return x, y


for step in range(STEPS):
    x, y = batch()
    loss = compiled_loss(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")

x, y = batch()
with torch.no_grad():
    got, want = compiled_loss(x, y), model.forward_loss(x, y)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("nano-llama31 compile train ok")
