"""Corpus driver (kx's code): nano-vllm's engine in eager mode (LLM(path, enforce_eager=True):
no CUDA graphs, every decode step runs the torch.compile'd RMSNorm / rotary / SiluAndMul /
Sampler eagerly with the batch size of the step, so the compiled functions see changing shapes)
with its prefix cache and chunked prefill: max_num_batched_tokens 512 (a 900-token prompt is
prefilled in two chunks: the second one reads the first chunk's K/V back through the block table),
then a second generate() whose prompts share a 600-token system prefix with the first one's
(two full 256-token KV blocks found by their xxhash: their prefill starts at token 512 and
attends to the cached blocks through block_tables). Model: the 4-layer Qwen3-0.6B config of
nanovllm_generate (random weights), temperature 0.8, max_tokens 24 and 40, Triton
store_kvcache for every new K/V. gpu_memory_utilization set as in nanovllm_generate.
flash_attn, transformers, xxhash, tqdm are stood in where absent (nanovllm_package())."""

import tempfile

import _corpus_support
import torch

HF_CONFIG = dict(
    architectures=["Qwen3ForCausalLM"],
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=4,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    hidden_act="silu",
    max_position_embeddings=40960,
    rms_norm_eps=1e-6,
    rope_theta=1000000,
    rope_scaling=None,
    attention_bias=False,
    tie_word_embeddings=True,
    vocab_size=151936,
    eos_token_id=151645,
    dtype=torch.bfloat16,
    torch_dtype=torch.bfloat16,
)
_corpus_support.nanovllm_package(HF_CONFIG)
from nanovllm import LLM, SamplingParams  # noqa: E402

path = tempfile.mkdtemp(prefix="qwen3-0.6b-")
free, total = torch.cuda.mem_get_info()
utilization = min(0.9, (total - free + 6 * 2**30) / total)
llm = LLM(
    path,
    enforce_eager=True,
    tensor_parallel_size=1,
    max_num_seqs=8,
    max_num_batched_tokens=512,
    max_model_len=2048,
    gpu_memory_utilization=utilization,
)
with torch.no_grad():
    for p in llm.model_runner.model.parameters():
        p.fill_(1.0) if p.dim() == 1 else p.normal_(0.0, 0.02)

torch.manual_seed(0)
system = torch.randint(0, 151000, (600,)).tolist()
first = [system + torch.randint(0, 151000, (300,)).tolist()]
out1 = llm.generate(first, SamplingParams(temperature=0.8, max_tokens=24, ignore_eos=True), use_tqdm=False)
second = [system + torch.randint(0, 151000, (n,)).tolist() for n in (40, 150, 90)]
out2 = llm.generate(second, SamplingParams(temperature=0.8, max_tokens=40, ignore_eos=True), use_tqdm=False)
print("nano-vllm prefix cache ok", [len(o["token_ids"]) for o in out1 + out2])
