"""Corpus driver (kx's code): karpathy/llm.c's PyTorch reference trainer, run as its README's
`python train_gpt2.py --compile=1 --tensorcores=1 --dtype=bfloat16 ...` (runpy, __main__): a
GPT-2 124M ("d12": 12 layers, 12 heads, n_embd 768, vocab 50257) from scratch, torch.compile
with Inductor's coordinate_descent_tuning switched on by the script, TF32 matmuls
(tensorcores), bf16 autocast, flash attention through F.scaled_dot_product_attention
(--flash=1), fused AdamW (configure_optimizers, weight decay 0.1), gradient accumulation 2
(total batch 8192 tokens of B 4 x T 1024), grad-norm clipping, cosine LR with 2 warm-up steps,
4 steps with no single-batch overfitting; validation every 2 steps (model.eval(), 2 batches,
loss.item(): the eval graph) and sampling at step 0 and the last step (raw_model.generate:
32 tokens, top-k 40, eager, .tolist() of the result). Data: llm.c's .bin shard format (256-int32
header, magic 20240520, uint16 tokens) written with random GPT-2 token ids in place of the
tokenized TinyShakespeare / FineWeb (2 train shards of 40000 tokens, 1 val shard);
--write_tensors=0 (no C-side model files). tiktoken is stood in where absent (llmc_package())."""

import importlib.util
import os
import tempfile

import _corpus_support
import numpy as np

_corpus_support.llmc_package()
script = importlib.util.find_spec("train_gpt2").origin
work = tempfile.mkdtemp(prefix="llmc-")
rng = np.random.default_rng(0)
for name in ("train_000000.bin", "train_000001.bin", "val_000000.bin"):
    header = np.zeros(256, dtype=np.int32)
    header[:3] = (20240520, 1, 40000)
    with open(os.path.join(work, name), "wb") as f:
        f.write(header.tobytes())
        f.write(rng.integers(0, 50257, 40000, dtype=np.uint16).tobytes())

argv = [
    f"--input_bin={work}/train_*.bin",
    f"--input_val_bin={work}/val_*.bin",
    "--model=d12",
    "--batch_size=4",
    "--sequence_length=1024",
    "--total_batch_size=8192",
    "--num_iterations=4",
    "--learning_rate=0.0006",
    "--warmup_iters=2",
    "--weight_decay=0.1",
    "--val_loss_every=2",
    "--val_max_steps=2",
    "--sample_every=4",
    "--overfit_single_batch=0",
    "--compile=1",
    "--tensorcores=1",
    "--flash=1",
    "--dtype=bfloat16",
    "--write_tensors=0",
]
g = _corpus_support.run_script(script, argv, cwd=work)
print("llm.c train_gpt2 ok", g["step"], round(float(g["lossf"]), 3), tuple(g["yg"].shape))
