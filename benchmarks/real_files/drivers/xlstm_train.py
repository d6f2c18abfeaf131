"""Corpus driver (kx's code): training NX-AI/xlstm's xLSTM Large (xlstm/xlstm_large/model.py) in
its training mode with mlstm_kernels' (NX-AI/mlstm_kernels, on the path) chunkwise Triton kernels:
mode "train" (return_last_states=True: mLSTMLayer.forward always unpacks (h, state), so
xLSTMLarge trains with it on, and "train_with_padding" refuses it) with chunkwise_kernel
"chunkwise--triton_xl_chunk" (the xLSTM-7B kernel: the chunked forward and its backward, recurrent
and parallel parts, inside an autograd Function with custom_fwd/custom_bwd under
autocast_kernel_dtype bf16) on 1024-token sequences, then "chunkwise--triton_limit_chunk" on
512-token sequences. Each: 3 AdamW steps of next-token
cross-entropy under torch.autocast('cuda', bf16) with fp32 master weights, gradient clipping.
xLSTM-7B's proportions (qk 0.5, ffn 2.667 x, soft caps 15 / 30, vocab 50304) at embedding 768,
4 heads, 4 blocks, batch 4; random token ids. xlstm/__init__.py is skipped
(_corpus5_support.xlstm_large())."""

import _corpus5_support
import torch
import torch.nn.functional as F

_corpus5_support.xlstm_large()
from xlstm.xlstm_large.model import xLSTMLarge, xLSTMLargeConfig  # noqa: E402

for mode, kernel, seq_len in [
    ("train", "chunkwise--triton_xl_chunk", 1024),
    ("train", "chunkwise--triton_limit_chunk", 512),
]:
    torch.manual_seed(0)
    config = xLSTMLargeConfig(
        embedding_dim=768,
        num_heads=4,
        num_blocks=4,
        vocab_size=50304,
        mode=mode,
        chunkwise_kernel=kernel,
        return_last_states=True,
    )
    model = xLSTMLarge(config).to("cuda").train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    data = torch.randint(0, config.vocab_size, (4, seq_len + 1), device="cuda")
    for step in range(3):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits, _ = model(data[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, config.vocab_size), data[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        print(mode, kernel, f"step {step} loss {loss.item():.4f}")
torch.cuda.synchronize()
print("xlstm large train ok")
