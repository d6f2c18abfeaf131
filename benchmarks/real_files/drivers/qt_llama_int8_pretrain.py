"""Corpus driver (kx's code): gau-nernst/quantized-training's INT8 mixed-precision LLM pretraining,
as llm_pretrain.py runs it on one GPU with --quantize mixed_precision: a transformers
LlamaForCausalLM built from the repo's own config (mini_llamas/Llama-2-470m/config.json: d 1024,
16 heads; here 8 of its 24 layers and an MLP width of 1024 instead of 4096, so every quantised
matmul has one of two shapes: scaled_mm autotunes 25 configs per new shape) with
max_position_embeddings = seq_len and use_cache=False, Linear / Embedding / RMSNorm cast to bf16
(the rotary cache kept fp32), moved to cuda, then `quantize_model(model.model, "mixed_precision")`
(subclasses/mixed_precision.py convert_mixed_precision: every decoder nn.Linear weight becomes a
MixedPrecisionLinearWeight whose __torch_function__ sends F.linear to an autograd.Function doing
dynamic row-wise int8 quantisation of both operands and gn_kernels' scaled_mm, a torch.library op
with Meta and CUDA implementations over an autotuned Triton kernel, for the output, grad_input and
grad_weight matmuls; the lm head stays bf16), torch.optim.AdamW, `loss_fn =
torch.compile(get_loss)` (logits.float() and a cross-entropy, as the script defines it), 2
micro-batches of gradient accumulation per step, clip_grad_norm_, `loss.item()`. Random token
batches (the script streams a pre-tokenised dataset): 8 x 1024 tokens, 4 steps. A torch.compile
program with a backward pass through tensor subclasses, custom autograd.Functions and custom
operators launching Triton kernels."""

import os

import _corpus8_support as S
import torch
import torch.nn.functional as F
from subclasses import MixedPrecisionConfig, convert_mixed_precision
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaRMSNorm

torch.manual_seed(2024)
dev = "cuda"
SEQ, BATCH, STEPS, ACCUM = S.pick((1024, 8, 4, 2), (32, 2, 2, 2))
config_dir = os.path.join(S.find_on_path("mini_llamas"), "Llama-2-470m")
overrides = S.pick(
    dict(num_hidden_layers=8, intermediate_size=1024),
    dict(
        num_hidden_layers=2,
        hidden_size=64,
        intermediate_size=64,
        num_attention_heads=2,
        num_key_value_heads=2,
        vocab_size=512,
    ),
)


def get_loss(model: LlamaForCausalLM, tokens, labels):
    logits = model(tokens).logits.float()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.long().view(-1))


config = LlamaConfig.from_pretrained(config_dir, max_position_embeddings=SEQ, use_cache=False, **overrides)
model = LlamaForCausalLM(config)
for m in model.modules():  # keep RoPE cache in FP32
    if isinstance(m, (nn.Linear, nn.Embedding, LlamaRMSNorm)):
        m.bfloat16()
assert model.model.rotary_emb.inv_freq.dtype is torch.float32
model.cuda()
convert_mixed_precision(model.model, config=MixedPrecisionConfig())
optim = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.0)
model.train()
loss_fn = torch.compile(get_loss)
for step in range(STEPS):
    for _ in range(ACCUM):
        data = torch.randint(0, config.vocab_size, (BATCH, SEQ + 1), device=dev)
        loss = loss_fn(model, data[:, :-1].contiguous(), data[:, 1:].contiguous())
        loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    print(f"step {step} loss {loss.item():.4f} grad norm {grad_norm.item():.3f}")
    optim.step()
    optim.zero_grad()
torch.cuda.synchronize()
print("quantized-training llama int8 pretrain ok")
