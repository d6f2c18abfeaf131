"""Corpus driver (kx's code): karpathy/llama2.c's training script, run as
`python train.py --key=value ...` (its configurator.py overrides) from a working folder
holding configurator.py and a pretokenized TinyStories-style dataset: train.py itself is
executed (runpy, __main__) with the defaults of the 15M-parameter model (dim 288, 6 layers, 6
heads, max_seq_len 256, vocab 32000 "llama2") and compile=True (torch.compile(model)),
dtype bfloat16 (torch.amp.autocast bf16), fused AdamW (configure_optimizers: fused when
available on CUDA), GradScaler (disabled for bf16), gradient clipping, cosine LR with warmup;
overrides for a short run: batch_size 16, gradient_accumulation_steps 2, max_iters 6,
eval_interval 3, eval_iters 2, warmup_iters 2. The run evaluates at iter 0 and 3
(estimate_loss(): model.eval() under no_grad, loss.item() per batch: a second compiled
graph), trains with backward through the compiled model, saves out/ckpt.pt and exports
out/model.bin (export.py's legacy format) after the iter-3 eval. The dataset: 3 shards of
random uint16 token ids (data/TinyStories_all_data/data0X.bin, 60000 tokens each: shard 0 is
the val split) in place of the downloaded, sentencepiece-tokenized TinyStories (PretokDataset
reads them with np.memmap as upstream). requests / sentencepiece / tqdm are stood in where
absent (llama2c_package())."""

import importlib.util
import os
import shutil
import tempfile

import _corpus_support
import numpy as np

_corpus_support.llama2c_package()
src = os.path.dirname(importlib.util.find_spec("train").origin)
work = tempfile.mkdtemp(prefix="llama2c-")
shutil.copy(os.path.join(src, "configurator.py"), work)
data = os.path.join(work, "data", "TinyStories_all_data")
os.makedirs(data)
rng = np.random.default_rng(0)
for i in range(3):
    rng.integers(3, 32000, 60000, dtype=np.uint16).tofile(os.path.join(data, f"data{i:02d}.bin"))

argv = [
    "--batch_size=16",
    "--gradient_accumulation_steps=2",
    "--max_iters=6",
    "--eval_interval=3",
    "--eval_iters=2",
    "--warmup_iters=2",
    "--compile=True",
    "--dtype=bfloat16",
]
g = _corpus_support.run_script(os.path.join(src, "train.py"), argv, cwd=work)
print(
    "llama2.c train ok",
    g["iter_num"],
    round(float(g["best_val_loss"]), 3),
    sorted(os.listdir(os.path.join(work, "out"))),
)
