"""Corpus driver (kx's code): Lightning-AI/lit-llama's LLaMA-Adapter v2 (lit_llama/adapter.py:
LLaMA whose blocks from adapter_start_layer on attend to a learned adapter prompt through a
zero-initialised gating factor, with the prefix keys / values computed per block;
lit_llama/adapter_v2.py: add_adapter_v2_parameters_to_linear_layers rebinds every nn.Linear's
forward to adapter_scale * (F.linear(x, W, b) + adapter_bias), and
mark_only_adapter_v2_as_trainable leaves only adapter / gating / RMSNorm parameters trainable)
trained as finetune/adapter_v2.py trains it, with torch.compile: 8 layers, d 2048, 16 heads,
vocab 32000, adapter prompt 10 from layer 2, context 256 (the script's max_seq_length), bf16,
batch 4, next-token cross-entropy, AdamW, 4 compiled steps with loss.backward(); the gating
factors move off zero; then the compiled vs the eager logits."""

import _corpus14_support as S
import torch
import torch.nn.functional as F

S.install_litllama_standins()
from lit_llama.adapter import LLaMA, LLaMAConfig  # noqa: E402
from lit_llama.adapter_v2 import (  # noqa: E402
    add_adapter_v2_parameters_to_linear_layers,
    mark_only_adapter_v2_as_trainable,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
cfg = S.pick(
    dict(
        block_size=256,
        vocab_size=32000,
        n_layer=8,
        n_head=16,
        n_embd=2048,
        adapter_prompt_length=10,
        adapter_start_layer=2,
    ),
    dict(
        block_size=32,
        vocab_size=256,
        n_layer=3,
        n_head=2,
        n_embd=64,
        adapter_prompt_length=4,
        adapter_start_layer=1,
    ),
)
B, T, STEPS = S.pick((4, 256, 4), (2, 32, 2))

model = LLaMA(LLaMAConfig(**cfg))
model.apply(model._init_weights)
add_adapter_v2_parameters_to_linear_layers(model)
model = model.to(dev, dt)
mark_only_adapter_v2_as_trainable(model)
trainable = [p for p in model.parameters() if p.requires_grad]
print(
    f"trainable {sum(p.numel() for p in trainable)} of {sum(p.numel() for p in model.parameters())} parameters"
)
opt = torch.optim.AdamW(trainable, lr=9e-3, weight_decay=0.02)
compiled = torch.compile(model)
for step in range(STEPS):
    tok = torch.randint(0, cfg["vocab_size"], (B, T + 1), device=dev)
    logits = compiled(tok[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), tok[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")
gates = [
    b.attn.gating_factor.abs().max().item() for b in model.transformer.h if hasattr(b.attn, "gating_factor")
]
print(f"gating factors max |g| per adapter layer: {[round(g, 4) for g in gates]}")
tok = torch.randint(0, cfg["vocab_size"], (B, T), device=dev)
with torch.no_grad():
    got, want = compiled(tok), model(tok)
print(f"compiled vs eager logits rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("litllama_adapter_compile_train ok")
