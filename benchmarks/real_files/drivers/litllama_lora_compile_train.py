"""Corpus driver (kx's code): Lightning-AI/lit-llama's LoRA fine-tuning model (lit_llama/lora.py:
under the lora(r, alpha, dropout) context manager LLaMA's attention is lora.CausalSelfAttention,
whose c_attn is a MergedLinear with rank-8 A / B adapters on q and v only (enable_lora [True,
False, True], zero_pad scattering the LoRA output into the q / v thirds), then
mark_only_lora_as_trainable) trained as finetune/lora.py trains it, with torch.compile: a
lit_llama.model.LLaMA of 8 layers, d 2048, 16 heads, vocab 32000, context 512 in bf16 (the
finetune script's bf16-true), batch 4 x 512 random tokens, next-token cross-entropy, AdamW on
the adapters only, 4 steps of compiled forward + loss.backward() + step; then the compiled vs
the eager logits in eval mode."""

import _corpus14_support as S
import torch
import torch.nn.functional as F

S.install_litllama_standins()
from lit_llama.lora import lora, mark_only_lora_as_trainable  # noqa: E402
from lit_llama.model import LLaMA, LLaMAConfig  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
cfg = S.pick(
    dict(block_size=512, vocab_size=32000, n_layer=8, n_head=16, n_embd=2048),
    dict(block_size=32, vocab_size=256, n_layer=2, n_head=2, n_embd=64),
)
B, T, STEPS = S.pick((4, 512, 4), (2, 32, 2))

with lora(r=8, alpha=16, dropout=0.05, enabled=True):
    model = LLaMA(LLaMAConfig(**cfg))
model.apply(model._init_weights)
model = model.to(dev, dt)
mark_only_lora_as_trainable(model)
trainable = [p for p in model.parameters() if p.requires_grad]
print(
    f"trainable {sum(p.numel() for p in trainable)} of {sum(p.numel() for p in model.parameters())} parameters"
)
opt = torch.optim.AdamW(trainable, lr=3e-4, weight_decay=0.01)
compiled = torch.compile(model)
model.train()
for step in range(STEPS):
    tok = torch.randint(0, cfg["vocab_size"], (B, T + 1), device=dev)
    logits = compiled(tok[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), tok[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    print(f"step {step} loss {loss.item():.4f}")

model.eval()  # MergedLinear.train(False) merges the adapters into the weight
tok = torch.randint(0, cfg["vocab_size"], (B, T), device=dev)
with torch.no_grad():
    got, want = compiled(tok), model(tok)
print(f"compiled vs eager logits (eval) rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("litllama_lora_compile_train ok")
