"""Corpus driver (kx's code): NX-AI/xlstm's xLSTM Large (xlstm/xlstm_large/model.py, the
architecture of xLSTM-7B) in inference mode, as its README's "xLSTM Large" example builds and runs
it: xLSTMLargeConfig with the Triton backends of mlstm_kernels (NX-AI/mlstm_kernels, on the path):
chunkwise_kernel "chunkwise--triton_xl_chunk", sequence_kernel "native_sequence__triton",
step_kernel "triton", mode "inference", return_last_states, weight_mode "fused"; then
model.generate(prefill_tokens, max_length) (xlstm_large/generate.py generate_tokens: a prefill of
the prompt, then one forward per new token with the recurrent state dict {layer: (c, n, m)}
updated in place, greedy argmax). The prefill of a prompt whose length is not a multiple of the
64-token chunk runs the chunkwise Triton forward kernels for the full chunks and the fused Triton
step kernel token by token for the rest (mlstm_kernels/torch/kernel_wrappers.py); each decode step
runs the Triton step kernel (mlstm_kernels/triton/recurrent) in every layer: a decode loop with
Triton kernels inside. xLSTM-7B's proportions (qk_dim_factor 0.5, v_dim_factor 1, ffn 2.667 x,
gate soft cap 15, logit soft cap 30, vocab 50304) at embedding 1024, 4 heads, 6 blocks, bf16,
random weights; prompts of batch 2 x 100 and 1 x 64 tokens, 48 and 16 new tokens. xlstm/__init__.py
(sLSTM blocks with their CUDA extension) is skipped (_corpus5_support.xlstm_large())."""

import _corpus5_support
import torch

_corpus5_support.xlstm_large()
from xlstm.xlstm_large.model import xLSTMLarge, xLSTMLargeConfig  # noqa: E402

torch.manual_seed(0)
config = xLSTMLargeConfig(
    embedding_dim=1024,
    num_heads=4,
    num_blocks=6,
    vocab_size=50304,
    return_last_states=True,
    mode="inference",
    chunkwise_kernel="chunkwise--triton_xl_chunk",
    sequence_kernel="native_sequence__triton",
    step_kernel="triton",
    weight_mode="fused",
)
model = xLSTMLarge(config).to("cuda").to(torch.bfloat16).eval()

prompt = torch.randint(0, config.vocab_size, (2, 100), device="cuda")
tokens, state = model.generate(prefill_tokens=prompt, max_length=48)
print("generated", tuple(tokens.shape), tokens[:, :8].tolist(), len(state))
tokens2, _ = model.generate(
    prefill_tokens=torch.randint(0, config.vocab_size, (1, 64), device="cuda"), max_length=16
)
torch.cuda.synchronize()
print("xlstm large generate ok", tokens2[0].tolist())
