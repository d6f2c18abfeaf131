"""Corpus driver (kx's code): karpathy/llama2.c's sampling script, run as
`python sample.py --checkpoint=out/ckpt.pt --compile=True --dtype=bfloat16 --start="Once upon a
time" --num_samples=2 --max_new_tokens=64` (sample.py executed with runpy as __main__, its
configurator.py overrides) on a checkpoint in train.py's format (model / model_args / config,
written here from a freshly initialised Transformer with the 15M model's args: dim 288, 6 layers,
6 heads, vocab 32000, max_seq_len 256; the "_orig_mod." prefix torch.compile leaves is there, as
train.py saves it from a compiled model). sample.py loads it, model.eval(), model =
torch.compile(model) (compile=True), then model.generate(): an autoregressive loop of 64
steps per sample (forward of the growing sequence, top-k 300, softmax, torch.multinomial,
torch.cat) under bf16 autocast, and enc.decode(y[0].tolist()). Note: generate() is reached
through the compiled wrapper's attribute forwarding, so its self(idx) calls the original
module: upstream's compile=True compiles nothing on this path (the entry checks that nothing
compiled is reported). The tokenizer file is a placeholder (sentencepiece is stood in where
absent, llama2c_package())."""

import importlib.util
import os
import shutil
import tempfile

import _corpus_support
import torch

_corpus_support.llama2c_package()
src = os.path.dirname(importlib.util.find_spec("sample").origin)
work = tempfile.mkdtemp(prefix="llama2c-sample-")
shutil.copy(os.path.join(src, "configurator.py"), work)
open(os.path.join(work, "tokenizer.model"), "wb").close()

from model import ModelArgs, Transformer  # noqa: E402

torch.manual_seed(1337)
model_args = dict(
    dim=288,
    n_layers=6,
    n_heads=6,
    n_kv_heads=6,
    vocab_size=32000,
    multiple_of=32,
    max_seq_len=256,
    dropout=0.0,
)
state = {"_orig_mod." + k: v for k, v in Transformer(ModelArgs(**model_args)).state_dict().items()}
os.makedirs(os.path.join(work, "out"))
torch.save(
    {
        "model": state,
        "model_args": model_args,
        "iter_num": 2000,
        "best_val_loss": 1.5,
        "config": {"vocab_source": "llama2"},
    },
    os.path.join(work, "out", "ckpt.pt"),
)

argv = [
    "--checkpoint=out/ckpt.pt",
    "--compile=True",
    "--dtype=bfloat16",
    "--start=Once upon a time",
    "--num_samples=2",
    "--max_new_tokens=64",
]
g = _corpus_support.run_script(os.path.join(src, "sample.py"), argv, cwd=work)
print("llama2.c sample ok", tuple(g["y"].shape))
