"""Corpus driver (kx's code): rasbt/LLMs-from-scratch's optimised single-GPU GPT trainer
(ch05/10_llm-training-speed/01_opt_single_gpu.py, its README's "tensor cores, fused AdamW,
pinned-memory loaders, bf16, FlashAttention (SDPA), torch.compile, vocab 50304" version) driven
through its own main(gpt_config, settings): set_float32_matmul_precision("high"),
GPTModel(gpt_config) then `model = torch.compile(model)`, .to(device).to(bfloat16), fused AdamW,
DataLoaders (4 workers) over a text file tokenised with GPT-2 BPE, then
train_model_simple_with_timing: training steps with backward through the compiled model, CUDA
event timing, evaluate_model every 10 steps (model.eval(), no_grad, loss.item(): a second
graph), and at the epoch's end generate_and_print_sample (50 greedy tokens through the compiled
model from a 4-token prompt: a growing sequence, recompiles and dynamic shapes; .tolist()).
GPT_CONFIG_124M (vocab 50304, context 1024, d 768, 12 heads, dropout 0.1) at 6 layers; settings
1 epoch, batch 8, lr 5e-4, weight decay 0.1 (upstream: 15 epochs, batch 32). The book text it
downloads (middlemarch.txt) is a generated text of about 115k characters written to the working
folder first; tiktoken's gpt2 encoding (a download) is a byte-level stand-in, `requests` and
matplotlib (plotting after main) are stand-ins. A torch.compile program with a backward pass."""

import os
import runpy
import sys
import tempfile

import _corpus5_support
import torch

_corpus5_support.tiktoken_standin()
_corpus5_support.stub_any("requests")
_corpus5_support.stub_any("matplotlib")
_corpus5_support.stub_any("matplotlib.pyplot")

path = next(
    os.path.join(p, "01_opt_single_gpu.py")
    for p in sys.path
    if p and os.path.isfile(os.path.join(p, "01_opt_single_gpu.py"))
)
work = tempfile.mkdtemp(prefix="rasbt-speed-")
os.chdir(work)  # main() reads (or downloads to) ./middlemarch.txt
_corpus5_support.write_text(os.path.join(work, "middlemarch.txt"), 21000, seed=145)
g = runpy.run_path(path, run_name="opt_single_gpu")  # the module, without its __main__ block
GPT_CONFIG_124M = {
    "vocab_size": 50304,
    "context_length": 1024,
    "emb_dim": 768,
    "n_heads": 12,
    "n_layers": 6,
    "drop_rate": 0.1,
    "qkv_bias": False,
}
OTHER_SETTINGS = {"learning_rate": 5e-4, "num_epochs": 1, "batch_size": 8, "weight_decay": 0.1}
train_losses, val_losses, tokens_seen, model = g["main"](GPT_CONFIG_124M, OTHER_SETTINGS)
torch.cuda.synchronize()
print("rasbt gpt train speed ok", [round(x, 3) for x in train_losses], tokens_seen)
