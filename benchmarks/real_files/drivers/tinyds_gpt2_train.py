"""Corpus driver (kx's code): liangyuwang/Tiny-DeepSpeed's single-device example
(example/single_device/train.py: example/model.py's GPT2Model at GPTConfig's GPT-2-small defaults,
one 1024-token sequence per step, the repository's own AdamW from tiny_deepspeed/core/optim over
model.named_parameters()) with the model's nn.LayerNorm layers swapped for the library's fused
Triton LayerNorm (tiny_deepspeed.core.module.LayerNorm, the same parameters), as the library's
modules are meant to replace torch's; a few steps of forward + loss.backward() +
optimizer.step(); the first step's loss and gradients checked against the same model with
torch's LayerNorm."""

import copy

import _corpus15_support as S
import torch
import torch.nn as nn
from example.model import GPT2Model, GPTConfig
from tiny_deepspeed.core.module import LayerNorm
from tiny_deepspeed.core.optim import AdamW

torch.manual_seed(0)
dev = "cuda"
config = (
    GPTConfig() if not S.small() else GPTConfig(block_size=16, vocab_size=96, n_layer=2, n_head=2, n_embd=32)
)
STEPS = S.pick(6, 2)


def swap_layernorms(module):
    for name, child in module.named_children():
        if isinstance(child, nn.LayerNorm) and not isinstance(child, LayerNorm):
            fused = LayerNorm(child.normalized_shape[0], eps=child.eps, device=child.weight.device)
            with torch.no_grad():
                fused.weight.copy_(child.weight)
                fused.bias.copy_(child.bias)
            setattr(module, name, fused)
        else:
            swap_layernorms(child)


input = torch.randint(0, config.vocab_size, (1, config.block_size)).to(dev)
target = torch.randint(0, config.vocab_size, (1, config.block_size)).to(dev)
reference = GPT2Model(config).to(dev)
model = copy.deepcopy(reference)
swap_layernorms(model)
n_fused = sum(isinstance(m, LayerNorm) for m in model.modules())
print(f"GPT2Model: {sum(p.numel() for p in model.parameters())} parameters, {n_fused} fused LayerNorms")

_, ref_loss = reference(input, target)
ref_loss.backward()
optimizer = AdamW(model.named_parameters(), lr=1e-5, weight_decay=1e-1)
for i in range(STEPS):
    _, loss = model(input, target)
    loss.backward()
    if i == 0:
        ref_grads = dict(reference.named_parameters())
        gerr = max(S.rel_err(p.grad, ref_grads[n].grad) for n, p in model.named_parameters())
        print(
            f"step 0 loss {loss.item():.4f} vs torch LayerNorm {ref_loss.item():.4f}, worst grad rel err {gerr:.1e}"
        )
        assert abs(loss.item() - ref_loss.item()) < 1e-3 and gerr < 1e-2, (loss.item(), ref_loss.item(), gerr)
    optimizer.step()
    print(f"iter {i} loss: {loss.item():.4f}")

torch.cuda.synchronize()
print("tinyds_gpt2_train ok")
