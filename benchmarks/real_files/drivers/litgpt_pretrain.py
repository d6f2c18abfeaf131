"""Corpus driver (kx's code): LitGPT's pretraining step (litgpt/pretrain.py: setup() -> fit())
for `litgpt pretrain pythia-70m` on one GPU, on random token ids in place of the data module:
GPT(Config.from_name("pythia-70m")) (GPT-NeoX: LayerNorm, parallel residual, partial rotary
(rotary_percentage 0.25), GptNeoxMLP with GELU, 6 layers, n_embd 512, 8 heads, vocab padded
to 50304), block size 2048 cut to max_seq_length 512, model = torch.compile(model) as
pretrain.py does, fused AdamW (lr 4e-4, weight decay 0.1, betas (0.9, 0.95)), precision
bf16-mixed (what get_default_supported_precision(training=True) answers on an H200: fp32
weights, the forward under torch.autocast bf16, as Lightning Fabric's precision plugin does),
micro batch 4, gradient accumulation 2, fit()'s loop: get_lr (warmup then cosine, restated
from pretrain.py, which imports lightning / torchmetrics / the data modules), forward,
litgpt.utils.chunked_cross_entropy, backward of loss / accumulation, gradient clipping at
max_norm 1.0 (fabric.clip_gradients -> clip_grad_norm_), optimizer step; the initial sanity
validate() (eval forward under no_grad, 2 batches) and a validation after the steps. Lightning,
lightning_utilities and psutil imports are stood in (litgpt_package()); litgpt/model.py,
config.py and utils.py run unchanged. 4 optimizer steps (8 micro-batches)."""

import math

import _corpus_support
import torch

_corpus_support.litgpt_package()
from litgpt.config import Config  # noqa: E402
from litgpt.model import GPT  # noqa: E402
from litgpt.utils import chunked_cross_entropy  # noqa: E402

torch.manual_seed(1337)
dev = torch.device("cuda")


def get_lr(learning_rate, it, warmup_iters, max_iters, min_lr):  # litgpt/pretrain.py
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > max_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


config = Config.from_name("pythia-70m")
with dev:
    model = GPT(config)
model.max_seq_length = 512
model = torch.compile(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1, betas=(0.9, 0.95), fused=True)
autocast = torch.autocast("cuda", dtype=torch.bfloat16)

micro_batch, accum, max_iters, warmup = 4, 2, 8, 2


def batch():
    return torch.randint(0, config.vocab_size, (micro_batch, 513), device=dev)


def validate(n):
    model.eval()
    losses = []
    with torch.no_grad():
        for _ in range(n):
            b = batch()
            with autocast:
                logits = model(b[:, :512].contiguous().long())
                losses.append(chunked_cross_entropy(logits, b[:, 1:513].contiguous().long()))
    model.train()
    return torch.stack(losses).mean()


val0 = validate(2)  # pretrain.py's sanity check
for it in range(1, max_iters + 1):
    lr = get_lr(4e-4, it, warmup, max_iters, 4e-5)
    for g in optimizer.param_groups:
        g["lr"] = lr
    data = batch()
    input_ids = data[:, 0:512].contiguous().long()
    targets = data[:, 1:513].contiguous().long()
    with autocast:
        logits = model(input_ids)
        loss = chunked_cross_entropy(logits, targets)
    (loss / accum).backward()
    if it % accum == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad()
val1 = validate(2)
torch.cuda.synchronize()
print("litgpt pretrain ok", round(val0.item(), 3), round(loss.item(), 3), round(val1.item(), 3))
