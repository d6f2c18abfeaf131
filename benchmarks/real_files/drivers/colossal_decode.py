"""Corpus driver (kx's code): hpcaitech/ColossalAI's inference Triton kernels (colossalai/kernel/
triton: flash_decoding.py's split-KV flash decoding over a paged (blocked) KV cache with its
reduce kernel, context_attn_unpad.py's prefill attention that fills the blocked cache,
no_pad_rotary_embedding.py's rotary / fused decode rotary + cache copy, rotary_cache_copy.py's
get_xine_cache, kvcache_copy.py, rms_layernorm.py with the fused residual add) in a token-by-token
decode loop, wired as colossalai/inference's TritonPreAttentionBackend / TritonAttentionBackend
and nopadding_llama.py wire them (use_cuda_kernel=False): a Llama-like GQA decoder (kx's code: 4
layers, d 2048, 16 query heads and 4 KV heads of 128, SwiGLU 5632, vocab 32000, fp16) serving 4
unpadded prompts of different lengths (the packed token layout, no padding), block size 16.
Prefill: get_xine_cache(is_prompts=True), rotary_embedding, context_attention_unpadded (writes
the blocked cache); then 40 greedy steps: get_xine_cache of the last position,
decoding_fused_rotary_embedding (rotary + copy into the cache), flash_decoding_attention with
kv_group_num 4 and the intermediate mid_output / mid_output_lse buffers FDIntermTensors keeps,
`.tolist()` of the tokens each step; sequence lengths grow across block boundaries. Then a
speculative-decoding verification step (q_len 3: rotary_embedding, copy_k_to_blocked_cache with
n=3, flash_decoding_attention(q_len=3)), as the backends do for use_spec_dec. A decode loop that
launches Triton kernels every step."""

import _corpus7_support as S
import torch
import torch.nn.functional as F

S.bare_package("colossalai")
S.bare_package("colossalai.kernel")
from colossalai.kernel.triton import (  # noqa: E402
    context_attention_unpadded,
    copy_k_to_blocked_cache,
    decoding_fused_rotary_embedding,
    flash_decoding_attention,
    get_xine_cache,
    rms_layernorm,
    rotary_embedding,
)

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
V, D, H, KVH, HD, FF, L = S.pick((32000, 2048, 16, 4, 128, 5632, 4), (300, 128, 4, 2, 32, 160, 2))
BLOCK = 16
prompt_lens = S.pick([97, 33, 250, 160], [9, 20, 5])
steps = S.pick(40, 14)
bsz = len(prompt_lens)
max_len = max(prompt_lens) + steps + 8
blocks_per_seq = (max_len + BLOCK - 1) // BLOCK
num_blocks = bsz * blocks_per_seq
k_caches = [torch.zeros(num_blocks, KVH, BLOCK, HD, device=dev, dtype=dt) for _ in range(L)]
v_caches = [torch.zeros(num_blocks, KVH, BLOCK, HD, device=dev, dtype=dt) for _ in range(L)]
# a shuffled block allocation, as the KV cache manager hands blocks out
perm = torch.randperm(num_blocks, device=dev).to(torch.int32)
block_tables = perm.view(bsz, blocks_per_seq).contiguous()

inv_freq = 1.0 / (10000.0 ** (torch.arange(0, HD, 2, dtype=torch.float32) / HD))
freqs = torch.outer(torch.arange(max_len + 64, dtype=torch.float32), inv_freq)
cos_cache, sin_cache = torch.cos(freqs).to(dev, dt), torch.sin(freqs).to(dev, dt)


def w(*shape):
    return (torch.randn(*shape, device=dev, dtype=dt) / shape[-1] ** 0.5).contiguous()


emb = torch.randn(V, D, device=dev, dtype=dt) * 0.5
layers = [
    dict(
        ln1=torch.ones(D, device=dev, dtype=dt),
        ln2=torch.ones(D, device=dev, dtype=dt),
        qkv=w((H + 2 * KVH) * HD, D),
        o=w(D, H * HD),
        gate_up=w(2 * FF, D),
        down=w(D, FF),
    )
    for _ in range(L)
]
final_ln, lm_head = torch.ones(D, device=dev, dtype=dt), w(V, D)
sm_scale = 1.0 / HD**0.5
mid_output = torch.empty(bsz * 3, H, blocks_per_seq, HD, device=dev, dtype=torch.float32)
mid_lse = torch.empty(bsz * 3, H, blocks_per_seq, device=dev, dtype=torch.float32)


def mlp(p, h):
    g, u = F.linear(h, p["gate_up"]).chunk(2, dim=-1)
    return F.linear(F.silu(g) * u, p["down"])


@torch.no_grad()
def forward(tokens, seq_lens, is_prompts, q_len=1):
    """tokens: packed [n_tokens]; seq_lens: int32 [bsz] (kv lengths including these tokens)."""
    x = emb[tokens]
    kv_max = int(seq_lens.max().item())
    if is_prompts:
        cos, sin = get_xine_cache(seq_lens, cos_cache, sin_cache, is_prompts=True)
    elif q_len == 1:
        cos, sin = get_xine_cache(seq_lens, cos_cache, sin_cache, is_prompts=False)
    else:
        pos = (seq_lens[:, None] - q_len + torch.arange(q_len, device=dev)[None]).reshape(-1)
        cos, sin = cos_cache[pos], sin_cache[pos]
    residual = None
    norm_out = torch.empty_like(x)
    for li, p in enumerate(layers):
        if residual is None:
            (h, _), residual = rms_layernorm(x, p["ln1"], 1e-5, norm_out), x
        else:
            h, residual = rms_layernorm(x, p["ln1"], 1e-5, norm_out, residual)
        q, k, v = F.linear(h, p["qkv"]).split([H * HD, KVH * HD, KVH * HD], dim=-1)
        q = q.reshape(-1, H, HD).contiguous()
        k = k.reshape(-1, KVH, HD).contiguous()
        v = v.reshape(-1, KVH, HD).contiguous()
        if is_prompts:
            rotary_embedding(q, k, cos, sin)
            attn = context_attention_unpadded(
                q,
                k,
                v,
                k_caches[li],
                v_caches[li],
                seq_lens,
                block_tables,
                BLOCK,
                max_seq_len=kv_max,
                sm_scale=sm_scale,
            )
        elif q_len == 1:
            decoding_fused_rotary_embedding(
                q, k, v, cos, sin, k_caches[li], v_caches[li], block_tables, seq_lens
            )
            attn = flash_decoding_attention(
                q,
                k_caches[li],
                v_caches[li],
                seq_lens,
                block_tables,
                BLOCK,
                kv_max,
                mid_output=mid_output,
                mid_output_lse=mid_lse,
                sm_scale=sm_scale,
                kv_group_num=H // KVH,
            )
        else:  # speculative verification: q_len tokens per sequence
            rotary_embedding(q, k, cos, sin)
            copy_k_to_blocked_cache(k, k_caches[li], kv_lengths=seq_lens, block_tables=block_tables, n=q_len)
            copy_k_to_blocked_cache(v, v_caches[li], kv_lengths=seq_lens, block_tables=block_tables, n=q_len)
            attn = flash_decoding_attention(
                q,
                k_caches[li],
                v_caches[li],
                seq_lens,
                block_tables,
                BLOCK,
                kv_max,
                mid_output=mid_output,
                mid_output_lse=mid_lse,
                sm_scale=sm_scale,
                kv_group_num=H // KVH,
                q_len=q_len,
            )
        x = F.linear(attn.view(-1, H * HD), p["o"])
        h, residual = rms_layernorm(x, p["ln2"], 1e-5, norm_out, residual)
        x = mlp(p, h)
    x = x + residual
    if is_prompts:
        x = x[seq_lens.cumsum(0) - 1]
    h, _ = rms_layernorm(x.contiguous(), final_ln, 1e-5)
    return F.linear(h, lm_head).float()


lens = torch.tensor(prompt_lens, device=dev, dtype=torch.int32)
prompt = torch.randint(0, V, (int(lens.sum().item()),), device=dev)
logits = forward(prompt, lens, True)
out = [[] for _ in range(bsz)]
for _ in range(steps):
    nxt = logits.argmax(-1)
    for i, t in enumerate(nxt.tolist()):
        out[i].append(t)
    lens = lens + 1
    logits = forward(nxt, lens, False)
print("decoded", [len(o) for o in out], out[0][:6], "kv lengths", lens.tolist())

# speculative decoding: verify 3 drafted tokens per sequence in one step
draft = torch.randint(0, V, (bsz * 3,), device=dev)
lens = lens + 3
logits = forward(draft, lens, False, q_len=3)
torch.cuda.synchronize()
print("colossalai flash decoding ok", tuple(logits.shape), lens.tolist())
