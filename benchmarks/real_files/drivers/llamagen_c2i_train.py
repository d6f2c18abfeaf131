"""Corpus driver (kx's code): FoundationVision/LlamaGen's class-conditional image GPT
(autoregressive/models/gpt.py: Transformer with 2D RoPE over the token grid, LabelEmbedder with
class dropout for classifier-free guidance, token / residual / FFN dropout, SwiGLU, RMSNorm)
trained as autoregressive/train/train_c2i.py's loop does, on one process: `GPT_models['GPT-B']
(vocab_size=16384, block_size=(256 // 16) ** 2, num_classes=1000, cls_token_num=1,
model_type='c2i', resid/ffn dropout 0.1, token_dropout 0.1)`, creat_optimizer's two AdamW
groups (fused), the EMA copy (utils/ema.py update_ema / requires_grad), `model =
torch.compile(model)`, then per step: `with torch.cuda.amp.autocast(dtype=bf16): _, loss =
model(cond_idx=c_indices, idx=z_indices[:, :-1], targets=z_indices)`, GradScaler (disabled
for bf16) scale / backward / unscale_, clip_grad_norm_ 1.0, step, update, zero_grad,
update_ema on `_orig_mod`, loss.item(). Image codes are random token ids (the run script
reads VQ codes extracted from ImageNet), batch 32 of 256 codes + 1 class token, 4 steps. A
torch.compile program with a backward pass."""

import inspect

import _corpus6_support as S
import torch
from autoregressive.models.gpt import GPT_models
from utils.ema import requires_grad, update_ema

torch.manual_seed(0)
device = "cuda"
image_size, downsample, vocab = 256, 16, 16384
latent_size = S.pick(image_size // downsample, 4)
model = GPT_models["GPT-B"](
    vocab_size=vocab,
    block_size=latent_size**2,
    num_classes=1000,
    cls_token_num=1,
    resid_dropout_p=0.1,
    ffn_dropout_p=0.1,
    token_dropout_p=0.1,
    model_type="c2i",
).to(device)
if S.small():
    model.layers = model.layers[:2]
ema = GPT_models["GPT-B"](vocab_size=vocab, block_size=latent_size**2, num_classes=1000, model_type="c2i").to(
    device
)
if S.small():
    ema.layers = ema.layers[:2]
ema.load_state_dict(model.state_dict())
requires_grad(ema, False)

param_dict = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
decay = [p for p in param_dict.values() if p.dim() >= 2]
nodecay = [p for p in param_dict.values() if p.dim() < 2]
extra = dict(fused=True) if "fused" in inspect.signature(torch.optim.AdamW).parameters else {}
optimizer = torch.optim.AdamW(
    [{"params": decay, "weight_decay": 5e-2}, {"params": nodecay, "weight_decay": 0.0}],
    lr=1e-4,
    betas=(0.9, 0.95),
    **extra,
)
model = torch.compile(model)
model.train()
ema.eval()
scaler = torch.amp.GradScaler("cuda", enabled=False)  # mixed_precision 'bf16'
batch = S.pick(32, 2)
for step in range(4):
    z_indices = torch.randint(0, vocab, (batch, latent_size**2), device=device)
    c_indices = torch.randint(0, 1000, (batch,), device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        _, loss = model(cond_idx=c_indices, idx=z_indices[:, :-1], targets=z_indices)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    update_ema(ema, model._orig_mod)
    print("step", step, round(loss.item(), 4))
torch.cuda.synchronize()
print("llamagen c2i train ok")
