"""Corpus driver (kx's code): DeepSeek-V3's inference with the FP8 GEMM path
(inference/model.py's module-level switch gemm_impl = "fp8": every FP8 Linear quantises its
activations with kernel.py's act_quant (per-128 block scales, scale_fmt "ue8m0": the scale rounded
up to a power of two, as config_v3.1.json sets it) and multiplies with fp8_gemm, Triton's
autotuned block-scaled FP8 GEMM: 36 configs (BLOCK_M 16/32/64 x BLOCK_N 32/64/128 x 3-6 stages,
8 warps) keyed on N and K, which are constexpr). A 2-layer V3.1-shaped model (1 dense MLP layer,
1 MoE layer: 8 routed experts, top-2 in 4 groups / 2 chosen, sigmoid router, 1 shared expert),
dims chosen as a checkpoint's are, multiples of the 128 quantisation block (dim 1024, FFN and
expert FFN 1024, 8 heads of 192 / 128, q_lora_rank 0, kv_lora_rank 512), random FP8 weights and
power-of-two block scales in place of the converted checkpoint; generate.generate() for a batch
of 2 prompts (prefill, then 8 decode steps, M from 2 to 2 x prompt), as generate.py's main()
batch path; the autotuner benchmarks every config on the first call of each (N, K).
transformers and safetensors are stood in where absent (deepseek_v3_inference())."""

import _corpus_support
import torch

_corpus_support.deepseek_v3_inference()
import generate  # noqa: E402
import model as dsv3  # noqa: E402

dsv3.gemm_impl = "fp8"
args = dsv3.ModelArgs(
    max_batch_size=2,
    max_seq_len=4096,
    vocab_size=32768,
    dim=1024,
    inter_dim=1024,
    moe_inter_dim=1024,
    n_layers=2,
    n_dense_layers=1,
    n_heads=8,
    n_routed_experts=8,
    n_shared_experts=1,
    n_activated_experts=2,
    n_expert_groups=4,
    n_limited_groups=2,
    route_scale=2.5,
    score_func="sigmoid",
    q_lora_rank=0,
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
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dtype == torch.float8_e4m3fn:
            p.copy_((torch.randn(p.shape, device=p.device) * 64).clamp(-448, 448).to(p.dtype))
        elif name.endswith("scale"):
            p.copy_(torch.full(p.shape, 2.0**-12, device=p.device))
        elif p.dim() == 1:
            p.fill_(1.0)
        else:
            p.normal_(0, 0.02)

tokenizer = generate.AutoTokenizer.from_pretrained("ckpt")
prompts = ["Explain FP8 block scaling.", "hi"]
prompt_tokens = [
    tokenizer.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True)
    for p in prompts
]
completion_tokens = generate.generate(model, prompt_tokens, 8, tokenizer.eos_token_id, 0.2)
torch.cuda.synchronize()
print("deepseek-v3 fp8 gemm ok", [len(p) for p in prompt_tokens], [len(c) for c in completion_tokens])
