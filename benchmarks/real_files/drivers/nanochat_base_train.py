"""Corpus driver (kx's code): nanochat base_train's step under torch.compile (GPT forward +
backward, MuonAdamW with its own @torch.compile'd fused AdamW and Muon steps, evaluate_bpb).

What scripts/base_train.py does (bf16 compute, no FA3 on this box so nanochat's SDPA fallback,
default sliding-window pattern "SSSL") for a small model, on random token ids: GPT built on the
meta device, to_empty(cuda) + init_weights(), `model = torch.compile(model, dynamic=False)`,
model.setup_optimizer() (MuonAdamW: AdamW groups for embeddings / lm_head / scalars, Muon groups
per matrix shape), then per step: 2 micro-steps of loss = model(x, y); loss.backward(), the
lr / Muon momentum / weight-decay schedules written into the param groups, optimizer.step(),
model.zero_grad(set_to_none=True); finally evaluate_bpb() with the compiled model in eval mode
(loss_reduction='none', a second, forward-only graph).
base_train.py itself is a script (argparse, wandb, tokenizer and parquet data at import), so the
driver states its setup: --depth 4 --aspect-ratio 128 --head-dim 128 --max-seq-len 512
--device-batch-size 8 --total-batch-size 8192 (grad accumulation 2), default learning rates.
"""

import math
import os

os.environ.setdefault("NANOCHAT_DTYPE", "bfloat16")  # what nanochat auto-detects on an H200

import torch  # noqa: E402
from nanochat.common import COMPUTE_DTYPE, compute_init  # noqa: E402
from nanochat.gpt import GPT, GPTConfig  # noqa: E402
from nanochat.loss_eval import evaluate_bpb  # noqa: E402

ddp, ddp_rank, ddp_local_rank, ddp_world_size, device = compute_init("cuda")  # seeds 42, tf32

# base_train.py's build_model_meta(depth) with the flags above
depth, aspect_ratio, head_dim, max_seq_len = 4, 128, 128, 512
vocab_size = 32768  # nanochat's tokenizer vocabulary
base_dim = depth * aspect_ratio
model_dim = ((base_dim + head_dim - 1) // head_dim) * head_dim
num_heads = model_dim // head_dim
config = GPTConfig(
    sequence_len=max_seq_len,
    vocab_size=vocab_size,
    n_layer=depth,
    n_head=num_heads,
    n_kv_head=num_heads,
    n_embd=model_dim,
    window_pattern="SSSL",
)
with torch.device("meta"):
    model = GPT(config)
model.to_empty(device=device)
model.init_weights()

orig_model = model
model = torch.compile(model, dynamic=False)

device_batch_size, total_batch_size = 8, 8192
B_REF = 2**19
batch_lr_scale = (total_batch_size / B_REF) ** 0.5
weight_decay_scaled = 0.28 * math.sqrt(total_batch_size / B_REF)
optimizer = model.setup_optimizer(
    unembedding_lr=0.008 * batch_lr_scale,
    embedding_lr=0.3 * batch_lr_scale,
    scalar_lr=0.5 * batch_lr_scale,
    matrix_lr=0.02 * batch_lr_scale,
    weight_decay=weight_decay_scaled,
)
grad_accum_steps = total_batch_size // (device_batch_size * max_seq_len)

# the bos-bestfit loader's layout: one pinned CPU buffer and one GPU buffer holding
# [inputs (B*T) | targets (B*T)], refilled with a single host-to-device copy per batch
B, T = device_batch_size, max_seq_len
cpu_buffer = torch.empty(2 * B * T, dtype=torch.long, pin_memory=True)
gpu_buffer = torch.empty(2 * B * T, dtype=torch.long, device=device)
inputs, targets = gpu_buffer[: B * T].view(B, T), gpu_buffer[B * T :].view(B, T)
data_gen = torch.Generator().manual_seed(1234)
bos = vocab_size - 8  # nanochat puts the special tokens at the end of the vocabulary


def next_batch():
    rows = torch.randint(0, bos, (B, T + 1), generator=data_gen)
    rows[:, 0] = bos
    cpu_buffer[: B * T].view(B, T).copy_(rows[:, :-1])
    cpu_buffer[B * T :].view(B, T).copy_(rows[:, 1:])
    gpu_buffer.copy_(cpu_buffer, non_blocking=True)
    return inputs, targets


# tokenizer.get_token_bytes(): bytes per token id, 0 for the special tokens
token_bytes = torch.randint(1, 9, (vocab_size,), generator=data_gen, dtype=torch.int32)
token_bytes[bos:] = 0
token_bytes = token_bytes.to(device)

num_iterations, warmup_steps, warmdown_ratio, final_lr_frac = 4, 40, 0.65, 0.05


def get_lr_multiplier(it):
    warmdown_iters = round(warmdown_ratio * num_iterations)
    if it < warmup_steps:
        return (it + 1) / warmup_steps
    if it <= num_iterations - warmdown_iters:
        return 1.0
    progress = (num_iterations - it) / warmdown_iters
    return progress + (1 - progress) * final_lr_frac


def get_muon_momentum(it):
    frac = min(it / 400, 1.0)
    return (1 - frac) * 0.85 + frac * 0.97


def get_weight_decay(it):
    return weight_decay_scaled * 0.5 * (1 + math.cos(math.pi * it / num_iterations))


print(f"COMPUTE_DTYPE {COMPUTE_DTYPE}, windows {orig_model.window_sizes}, grad accum {grad_accum_steps}")
x, y = next_batch()
for step in range(num_iterations):
    for _micro_step in range(grad_accum_steps):
        loss = model(x, y)
        train_loss = loss.detach()
        loss = loss / grad_accum_steps
        loss.backward()
        x, y = next_batch()
    lrm = get_lr_multiplier(step)
    for group in optimizer.param_groups:
        group["lr"] = group["initial_lr"] * lrm
        if group["kind"] == "muon":
            group["momentum"] = get_muon_momentum(step)
            group["weight_decay"] = get_weight_decay(step)
    optimizer.step()
    model.zero_grad(set_to_none=True)
    print(f"step {step}: loss {train_loss.item():.4f} lrm {lrm:.3f}")

model.eval()


def val_loader():  # build_val_loader(): the same buffer views, refilled per batch
    while True:
        yield next_batch()


val_bpb = evaluate_bpb(model, val_loader(), 2, token_bytes)
model.train()
torch.cuda.synchronize()
print(f"nanochat base_train ok: val bpb {val_bpb:.4f}")
