"""Corpus driver (kx's code): DeepSeek-V3's reference inference (inference/generate.py main()'s
batch path, `torchrun --nproc-per-node 1 generate.py --ckpt-path ... --config configs/config_v3.1.json
--input-file prompts.txt`) for a scaled-down V3.1 config with random weights in place of the
converted checkpoint: dtype "fp8" with scale_fmt "ue8m0" (FP8 e4m3 weights with 128x128 block
scales, as convert.py leaves them), MLA with q_lora_rank, the sigmoid group-limited router
(8 -> 4 expert groups... scaled: 4 groups, 2 chosen), shared expert, 1 dense + 3 MoE layers.
model.py's default gemm_impl "bf16": every FP8 Linear runs kernel.py's Triton weight_dequant
then F.linear; MLA's absorbed attention dequantises wkv_b each call; MoE.forward reads
bincount(...).tolist() and torch.where(indices == i) on the host. generate() runs the
prefill of the shortest prompt, then one token per step (KV cache in model buffers),
torch.where with the prompt mask, and `finished.all()` each step; then tokens.tolist().
Done as main() does: set_default_dtype(bf16), manual_seed(965), Transformer built under
torch.device("cuda"), a 2-token warm-up generate(), then a batch of 4 prompts of different
lengths with max_new_tokens 32, temperature 0.2 (the CLI default). transformers' tokenizer and
safetensors' load_model are stood in (deepseek_v3_inference())."""

import _corpus_support
import torch

_corpus_support.deepseek_v3_inference()
import generate  # noqa: E402
import model as dsv3  # noqa: E402

args = dsv3.ModelArgs(
    max_batch_size=4,
    vocab_size=129280,
    dim=1024,
    inter_dim=2816,
    moe_inter_dim=512,
    n_layers=4,
    n_dense_layers=1,
    n_heads=8,
    n_routed_experts=16,
    n_shared_experts=1,
    n_activated_experts=4,
    n_expert_groups=4,
    n_limited_groups=2,
    route_scale=2.5,
    score_func="sigmoid",
    q_lora_rank=384,
    kv_lora_rank=512,
    qk_nope_head_dim=128,
    qk_rope_head_dim=64,
    v_head_dim=128,
    dtype="fp8",
    scale_fmt="ue8m0",
)

torch.cuda.set_device(0)
torch.set_default_dtype(torch.bfloat16)
torch.manual_seed(965)
with torch.device("cuda"):
    model = dsv3.Transformer(args)


@torch.no_grad()
def random_weights(m):  # what load_model() would fill in: FP8 weights, fp32 block scales
    for name, p in m.named_parameters():
        if p.dtype == torch.float8_e4m3fn:
            p.copy_((torch.randn(p.shape, device=p.device) * 64).clamp(-448, 448).to(p.dtype))
        elif name.endswith("scale"):
            p.copy_(torch.full(p.shape, 2.0**-12, device=p.device))
        elif p.dim() == 1:
            p.fill_(1.0)
        else:
            p.normal_(0, 0.02)


tokenizer = generate.AutoTokenizer.from_pretrained("ckpt")
random_weights(model)
generate.generate(model, [tokenizer.encode("DeepSeek")], 2, -1, 1.0)

prompts = ["hello", "Write a haiku about GPUs.", "What is 17 * 23?", "Summarise attention in one line."]
prompt_tokens = [
    tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True)
    for p in prompts
]
completion_tokens = generate.generate(model, prompt_tokens, 32, tokenizer.eos_token_id, 0.2)
completions = tokenizer.batch_decode(completion_tokens, skip_special_tokens=True)
torch.cuda.synchronize()
print("deepseek-v3 generate ok", [len(p) for p in prompt_tokens], [len(c) for c in completion_tokens])
