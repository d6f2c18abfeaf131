"""Corpus driver (kx's code): XunhaoLai/native-sparse-attention-triton's ToyNSALlama inference,
as its model README and toy_nsa_llama.py's __main__ run it: ToyNSALlama(config,
InferenceConfig(max_batch_size=4, max_length=8192, max_new_tokens=64)).cuda().bfloat16(), a
forward over a packed batch, then model.generate(input_ids, cu_seqlens, 64): greedy decoding
with the NSACache (Triton kernels that fill the KV / compressed-KV / sliding-window caches),
step 0 the varlen prefill (linear/weighted-pool compression, compressed_attention,
topk_sparse_attention, flash_attn sliding window), then 63 decode steps through
compressed_attention_decode (torch), topk_sparse_attention_decode and the sliding-window
flash_attention_decode (Triton), with .item() reads of cache lengths on the host. Config: the
__main__'s (weightedpool compression, kernel 32 / stride 16, block 64, top-8, window 512,
Llama-3.1 RoPE) scaled to 4 layers, hidden 1024, 16 query / 2 KV heads, head_dim 128, FFN
2816, vocab 32000; 4 prompts of 1500, 3000, 700 and 2200 tokens. flash_attn, einops and
transformers' RoPE initialisers are stood in where absent (nsa_package())."""

import _corpus_support
import torch

_corpus_support.nsa_package()
from native_sparse_attention.model import InferenceConfig, ToyNSALlama, ToyNSALlamaConfig  # noqa: E402

torch.manual_seed(42)
config = ToyNSALlamaConfig(
    vocab_size=32000,
    hidden_size=1024,
    intermediate_size=2816,
    num_hidden_layers=4,
    num_attention_heads=16,
    num_key_value_heads=2,
    head_dim=128,
    compress_type="weightedpool",
    kernel_size=32,
    kernel_stride=16,
    block_size=64,
    topk=8,
    init_blocks=1,
    local_blocks=2,
    window_size=512,
)
inference_config = InferenceConfig(max_batch_size=4, max_length=8192, max_new_tokens=64)
model = ToyNSALlama(config, inference_config).cuda().bfloat16()

seqlens = torch.tensor([1500, 3000, 700, 2200], dtype=torch.int32, device="cuda")
cu_seqlens = torch.zeros(seqlens.numel() + 1, dtype=torch.int32, device="cuda")
cu_seqlens[1:] = torch.cumsum(seqlens, dim=0)
input_ids = torch.randint(0, config.vocab_size, (int(cu_seqlens[-1]),), dtype=torch.int64, device="cuda")
with torch.no_grad():
    logits = model(input_ids, cu_seqlens)
output_tokens = model.generate(input_ids, cu_seqlens, 64)
torch.cuda.synchronize()
print("nsa generate ok", tuple(logits.shape), tuple(output_tokens.shape))
