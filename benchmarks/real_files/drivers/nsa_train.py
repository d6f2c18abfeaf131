"""Corpus driver (kx's code): training XunhaoLai/native-sparse-attention-triton's ToyNSALlama
(native_sparse_attention/model/toy_nsa_llama.py; the README's "forward for training") on packed
variable-length documents: a 4-layer Llama with NativeSparseAttention (hidden 1024, FFN 2816,
16 query heads, 2 KV heads, head_dim 128, Llama-3.1 RoPE scaling, compress_type "linear"
(kernel 32, stride 16), selection block 64, top-16 blocks with 1 initial + 2 local, sliding
window 512), vocab 32000, bf16 as the README requires (`.cuda().to(torch.bfloat16)`). Each
layer's forward: linear_compress of K and V (Triton, autograd Function), RoPE, compressed_attention
(Triton fwd + its top-k block scores; reads seqlens.max().item() on the host),
topk_sparse_attention (Triton fwd/bwd), the sliding-window branch (flash_attn_varlen_func:
flash-attn, a torch stand-in here), the sigmoid gate. 3 AdamW steps on a packed batch of 4
documents (cu_seqlens [0, 1000, 3048, 3565, 6565]) with next-token cross-entropy and
loss.backward() through every Triton backward. flash_attn, einops and transformers' RoPE
initialisers are stood in where absent (nsa_package())."""

import _corpus_support
import torch
import torch.nn.functional as F

_corpus_support.nsa_package()
from native_sparse_attention.model import ToyNSALlama, ToyNSALlamaConfig  # noqa: E402

torch.manual_seed(42)
config = ToyNSALlamaConfig(
    vocab_size=32000,
    hidden_size=1024,
    intermediate_size=2816,
    num_hidden_layers=4,
    num_attention_heads=16,
    num_key_value_heads=2,
    head_dim=128,
    compress_type="linear",
    kernel_size=32,
    kernel_stride=16,
    block_size=64,
    topk=16,
    init_blocks=1,
    local_blocks=2,
    window_size=512,
)
model = ToyNSALlama(config).cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

seqlens = torch.tensor([1000, 2048, 517, 3000], dtype=torch.int32, device="cuda")
cu_seqlens = torch.zeros(seqlens.numel() + 1, dtype=torch.int32, device="cuda")
cu_seqlens[1:] = torch.cumsum(seqlens, dim=0)
total = int(seqlens.sum())
for _step in range(3):
    tokens = torch.randint(0, config.vocab_size, (total + 1,), device="cuda")
    input_ids, labels = tokens[:-1], tokens[1:].clone()
    labels[cu_seqlens[1:].long() - 1] = -100  # no target across a document boundary
    logits = model(input_ids, cu_seqlens)
    loss = F.cross_entropy(logits, labels, ignore_index=-100)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
torch.cuda.synchronize()
print("nsa train ok", tuple(logits.shape), float(loss))
