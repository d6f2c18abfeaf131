"""Corpus driver (kx's code): rasbt/LLMs-from-scratch's IMDb sentiment fine-tuning of GPT-2
(ch06/03_bonus_imdb-classification/train_gpt.py) executed as
`python train_gpt.py --weights random --compile` (runpy, __main__; its README's command with
--compile, and random weights instead of the downloaded OpenAI checkpoint): GPT-2 small (124M,
context 1024, qkv bias) from previous_chapters.GPTModel, every parameter frozen, a new 2-class
out_head, the last transformer block and final norm trainable (--trainable_layers last_block,
the default), set_float32_matmul_precision("high") and torch.compile(model); AdamW on all
parameters; train_classifier_simple: cross-entropy on the last token's logits with backward
through the compiled model (gradients only for the last block), evaluate_model at step 0
(eval_iter 20, loss.item() per batch), per-epoch calc_accuracy_loader (.item() of the correct
count), then accuracy over the full train / validation / test loaders (eval graphs).
Sequences padded to --context_length 256 (the default) with id 50256, batch 8, 1 epoch. Data:
train.csv / validation.csv / test.csv (pandas, text + label) of 160 / 48 / 48 generated reviews
written to the working folder (the real ones come from download_prepare_dataset.py).
tiktoken's gpt2 encoding (a download) is a byte-level stand-in; `requests` and tensorflow
(imported by gpt_download.py for the checkpoint) are stand-ins. A torch.compile program with a
backward pass."""

import csv
import os
import random
import sys
import tempfile

import _corpus5_support
import torch

_corpus5_support.tiktoken_standin()
_corpus5_support.stub_any("requests")
_corpus5_support.stub_any("tensorflow")

path = next(
    os.path.join(p, "train_gpt.py")
    for p in sys.path
    if p and os.path.isfile(os.path.join(p, "train_gpt.py")) and "imdb" in p
)
work = tempfile.mkdtemp(prefix="rasbt-imdb-")
rng = random.Random(50256)
good = "great wonderful moving brilliant superb charming funny touching best loved".split()
bad = "awful boring dull terrible worst weak silly pointless bland annoying".split()
filler = "the film movie story acting plot was is and a of it this with but director cast scene".split()
for name, n in (("train", 160), ("validation", 48), ("test", 48)):
    with open(os.path.join(work, f"{name}.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        for _ in range(n):
            label = rng.randint(0, 1)
            words = [rng.choice(filler + (good if label else bad)) for _ in range(rng.randint(20, 90))]
            w.writerow([" ".join(words).capitalize() + ".", label])

torch.manual_seed(123)
g = _corpus5_support._corpus_support.run_script(path, ["--weights", "random", "--compile"], cwd=work)
torch.cuda.synchronize()
print("rasbt imdb classifier ok", round(g["test_accuracy"], 3))
