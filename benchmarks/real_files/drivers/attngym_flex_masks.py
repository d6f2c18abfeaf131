"""Corpus driver (kx's code): attention-gym's FlexAttention mask/score-mod benchmark
(examples/benchmark.py, `python examples/benchmark.py --examples ...`): the module is imported
as is (torch.set_default_device("cuda"), flex_attention = torch.compile(flex_attention,
dynamic=False), dynamo cache_size_limit 1000), then its test_mask() for each of its
AVAILABLE_EXAMPLES masks and score mods from attn_gym (causal_mask, generate_alibi_bias(16),
generate_sliding_window(1024), generate_prefix_lm_mask(1024), generate_tanh_softcap(30,
approx=False) and approx=True (the inline-PTX tanh.approx custom op)) and
run_document_masking(): each builds the block mask (create_block_mask, lru-cached), the dense
SDPA mask, fp16 q/k/v with requires_grad, times forward and backward of FA2-causal SDPA,
SDPA + mask and the compiled flex_attention with triton.testing.do_bench (backward with
retain_graph), checks flex against SDPA (forward and the three gradients; skipped for the score
mods, as upstream) and prints the tabulate table and the block mask. Sizes scaled from the
defaults (B 16, H 16, S 8192, D 64; documents 32768 / 12) to B 4, H 8, S 2048, D 64 and
documents 4096 / 6 (that one at test_mask's default B and H). tabulate is stood in where absent
(attention_gym_package())."""

import _corpus_support
import torch

_corpus_support.attention_gym_package()
from attn_gym.masks import causal_mask, generate_prefix_lm_mask, generate_sliding_window  # noqa: E402
from attn_gym.mods import generate_alibi_bias, generate_tanh_softcap  # noqa: E402
from examples import benchmark  # noqa: E402

size = dict(B=4, H=8, S=2048, D=64)
benchmark.test_mask(mask_mod=causal_mask, **size)
benchmark.test_mask(score_mod=generate_alibi_bias(16), skip_correctness=True, **size)
benchmark.test_mask(mask_mod=generate_sliding_window(window_size=1024), **size)
benchmark.test_mask(mask_mod=generate_prefix_lm_mask(prefix_length=1024), **size)
benchmark.test_mask(score_mod=generate_tanh_softcap(30, approx=False), skip_correctness=True, **size)
benchmark.test_mask(score_mod=generate_tanh_softcap(30, approx=True), skip_correctness=True, **size)
benchmark.run_document_masking(max_seq_len=4096, num_docs=6)
torch.cuda.synchronize()
print("attention-gym flex masks ok", torch._dynamo.utils.counters["stats"]["unique_graphs"])
