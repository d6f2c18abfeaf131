"""Corpus driver (kx's code): nano-vllm's offline generation (example.py / bench.py: LLM(path,
enforce_eager=False, tensor_parallel_size=1) then llm.generate(prompts, sampling_params)) for a
4-layer Qwen3-0.6B config (hidden 1024, 16 query / 8 KV heads, head_dim 128, q/k RMSNorm,
MLP 3072, vocab 151936, tied embeddings, bf16) with random weights in place of the checkpoint
(the model folder holds no .safetensors, so load_model() loads nothing; the driver then fills
the parameters in place). The engine as upstream runs it: an NCCL group of one
(tcp://localhost:2333), warm-up prefill, KV cache sized from torch.cuda.mem_get_info() and
gpu_memory_utilization, CUDA graphs captured for decode batch sizes 1, 2, 4, 8, 16
(max_num_seqs=16); the torch.compile'd RMSNorm / add-RMSNorm / rotary / SiluAndMul / Sampler;
the Triton store_kvcache kernel writing each new K/V through the slot mapping (decode: inside
the graphs); the scheduler with the prefix-cache block manager (xxhash of full blocks), 6 prompts
of 20-300 token ids, max_tokens 16/32/48 so that the decode batch shrinks 6 -> 4 -> 2 (graphs for
8, 4 and 2 replayed), temperature 0.6, token ids back with .tolist() each step.
gpu_memory_utilization is set so that the cache takes about 6 GiB above what the GPU already
holds (upstream's 0.9 would take most of an H200 from files run beside it). flash_attn,
transformers, xxhash, tqdm are stood in where absent (nanovllm_package())."""

import os
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
    enforce_eager=False,
    tensor_parallel_size=1,
    max_num_seqs=16,
    max_num_batched_tokens=2048,
    max_model_len=1024,
    gpu_memory_utilization=utilization,
)
with torch.no_grad():
    for p in llm.model_runner.model.parameters():
        p.fill_(1.0) if p.dim() == 1 else p.normal_(0.0, 0.02)

torch.manual_seed(0)
lengths = [20, 64, 300, 97, 150, 33]
prompts = [torch.randint(0, 151000, (n,)).tolist() for n in lengths]
params = [SamplingParams(temperature=0.6, max_tokens=m, ignore_eos=True) for m in (16, 32, 48, 16, 32, 48)]
outputs = llm.generate(prompts, params, use_tqdm=False)
print("nano-vllm generate ok", os.path.isdir(path), [len(o["token_ids"]) for o in outputs])
