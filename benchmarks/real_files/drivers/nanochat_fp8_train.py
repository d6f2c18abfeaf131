"""Corpus driver (kx's code): nanochat base_train --fp8 under torch.compile (nanochat's own
tensorwise FP8 training: Float8Linear / the @allow_in_graph _Float8Matmul autograd Function
with torch._scaled_mm, forward + backward), with MuonAdamW's compiled fused steps.

What scripts/base_train.py does with --fp8 --fp8-recipe tensorwise and --window-pattern L (the
pattern base_train recommends when FA3 is absent, as here: nanochat's SDPA fallback, is_causal),
on random token ids: GPT on the meta device, to_empty(cuda) + init_weights(), then
convert_to_float8_training(model, config=Float8LinearConfig.from_recipe_name("tensorwise"),
module_filter_fn=base_train's filter: nn.Linear with both dims divisible by 16 and >= 128), so
every attention / MLP projection and the lm_head become Float8Linear while ve_gate and
smear_gate stay bf16; `model = torch.compile(model, dynamic=False)`, model.setup_optimizer(),
3 steps of 2 micro-steps of loss.backward() and optimizer.step() with the lr schedule.
Setup (base_train.py is a script): --depth 4 --aspect-ratio 128 --head-dim 64 (8 heads)
--max-seq-len 256 --device-batch-size 16 --total-batch-size 8192, default learning rates.
"""

import os

os.environ.setdefault("NANOCHAT_DTYPE", "bfloat16")  # what nanochat auto-detects on an H200

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from nanochat.common import compute_init  # noqa: E402
from nanochat.fp8 import Float8LinearConfig, convert_to_float8_training  # noqa: E402
from nanochat.gpt import GPT, GPTConfig  # noqa: E402

ddp, ddp_rank, ddp_local_rank, ddp_world_size, device = compute_init("cuda")

depth, aspect_ratio, head_dim, max_seq_len = 4, 128, 64, 256
vocab_size = 32768
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
    window_pattern="L",
)
with torch.device("meta"):
    model = GPT(config)
model.to_empty(device=device)
model.init_weights()


def fp8_module_filter(mod: nn.Module, fqn: str) -> bool:  # base_train.py's filter
    if not isinstance(mod, nn.Linear):
        return False
    if mod.in_features % 16 != 0 or mod.out_features % 16 != 0:
        return False
    return min(mod.in_features, mod.out_features) >= 128


fp8_config = Float8LinearConfig.from_recipe_name("tensorwise")
num_linear = sum(1 for m in model.modules() if isinstance(m, nn.Linear))
convert_to_float8_training(model, config=fp8_config, module_filter_fn=fp8_module_filter)
num_fp8 = sum(1 for m in model.modules() if "Float8" in type(m).__name__)
print(f"FP8 training: converted {num_fp8}/{num_linear} linear layers")

model = torch.compile(model, dynamic=False)

device_batch_size, total_batch_size = 16, 8192
batch_lr_scale = (total_batch_size / 2**19) ** 0.5
optimizer = model.setup_optimizer(
    unembedding_lr=0.008 * batch_lr_scale,
    embedding_lr=0.3 * batch_lr_scale,
    scalar_lr=0.5 * batch_lr_scale,
    matrix_lr=0.02 * batch_lr_scale,
    weight_decay=0.28 * batch_lr_scale,
)
grad_accum_steps = total_batch_size // (device_batch_size * max_seq_len)

B, T = device_batch_size, max_seq_len
gpu_buffer = torch.empty(2 * B * T, dtype=torch.long, device=device)
inputs, targets = gpu_buffer[: B * T].view(B, T), gpu_buffer[B * T :].view(B, T)
data_gen = torch.Generator().manual_seed(4321)
bos = vocab_size - 8


def next_batch():
    rows = torch.randint(0, bos, (B, T + 1), generator=data_gen)
    rows[:, 0] = bos
    gpu_buffer.copy_(
        torch.cat([rows[:, :-1].reshape(-1), rows[:, 1:].reshape(-1)]).pin_memory(), non_blocking=True
    )
    return inputs, targets


num_iterations, warmup_steps = 3, 40
x, y = next_batch()
for step in range(num_iterations):
    for _micro_step in range(grad_accum_steps):
        loss = model(x, y)
        train_loss = loss.detach()
        (loss / grad_accum_steps).backward()
        x, y = next_batch()
    lrm = (step + 1) / warmup_steps
    for group in optimizer.param_groups:
        group["lr"] = group["initial_lr"] * lrm
        if group["kind"] == "muon":
            group["momentum"] = 0.85 + 0.12 * step / 400
    optimizer.step()
    model.zero_grad(set_to_none=True)
    print(f"step {step}: loss {train_loss.item():.4f}")
torch.cuda.synchronize()
print("nanochat fp8 train ok", f"{train_loss.item():.4f}")
