"""Corpus driver (kx's code): nanoGPT training under torch.compile (GPT forward + backward, fused AdamW).

What train.py does with config/train_shakespeare_char.py, on random token ids: GPT built from
model.py, moved to the GPU, optimizer from GPT.configure_optimizers (fused AdamW), then
`model = torch.compile(model)`; bf16 autocast, gradient accumulation, clip_grad_norm_,
optimizer step, per-iteration lr from get_lr's warmup, and one estimate_loss() pass (eval
mode, no_grad: a second, forward-only graph).
"""

import math
from contextlib import nullcontext

import torch
from model import GPT, GPTConfig

torch.manual_seed(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device, device_type = "cuda", "cuda"

# config/train_shakespeare_char.py (char-level vocab of 65), a smaller batch
batch_size, block_size, grad_accum = 16, 256, 2
vocab_size = 65
conf = GPTConfig(
    block_size=block_size, vocab_size=vocab_size, n_layer=4, n_head=6, n_embd=384, dropout=0.2, bias=False
)
learning_rate, min_lr, warmup_iters, lr_decay_iters = 1e-3, 1e-4, 100, 5000

model = GPT(conf)
model.to(device)
scaler = torch.amp.GradScaler("cuda", enabled=False)  # bf16: the no-op scaler train.py makes
optimizer = model.configure_optimizers(1e-1, learning_rate, (0.9, 0.99), device_type)
model = torch.compile(model)
ctx = (
    nullcontext()
    if device_type == "cpu"
    else torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)
)

data = torch.randint(0, vocab_size, (200_000,), dtype=torch.int64)  # stands in for train.bin


def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])
    return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


@torch.no_grad()
def estimate_loss(eval_iters=2):
    model.eval()
    losses = torch.zeros(eval_iters)
    for k in range(eval_iters):
        X, Y = get_batch()
        with ctx:
            _, loss = model(X, Y)
        losses[k] = loss.item()
    model.train()
    return losses.mean().item()


X, Y = get_batch()
for iter_num in range(4):
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    for _micro_step in range(grad_accum):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / grad_accum
        X, Y = get_batch()
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item() * grad_accum:.4f}")

val = estimate_loss()
torch.cuda.synchronize()
print("nanogpt train ok", tuple(logits.shape), f"val {val:.4f}")
