"""Corpus driver (kx's code): gpt-fast int8 weight-only generation: quantize.py's int8 mode, then
generate.py's _load_model and decode_one_token under torch.compile(mode="reduce-overhead", fullgraph=True).

gpt-fast's flow for `quantize.py --mode int8` and `generate.py --compile --checkpoint_path
.../model_int8.pth`, on random weights: a random stories15M checkpoint (the config that
model.py's transformer_configs names; 6 layers, dim 288, vocab 32000) is written to a temporary
checkpoints/stories15M/model.pth, quantize.quantize() writes model_int8.pth (per-channel int8
weights + bf16 scales for every Linear, lm head included), generate._load_model() builds the
model on the meta device, swaps in WeightOnlyInt8Linear and loads the int8 checkpoint onto the
GPU; then main()'s loop: decode_one_token compiled (prefill stays eager, as without
--compile_prefill), one warm-up and two generations of 24 tokens, batch 1, top_k 200.
"""

import tempfile
from pathlib import Path

import torch
from _corpus_support import stub_module

# generate.py / quantize.py import tokenizer.py (sentencepiece, tiktoken); neither is used here
stub_module("tokenizer", get_tokenizer=lambda tokenizer_path, model_name: None)

import generate as gen  # noqa: E402
import quantize  # noqa: E402
from model import Transformer  # noqa: E402

device = "cuda"
precision = torch.bfloat16
torch.manual_seed(0)

with tempfile.TemporaryDirectory() as tmp:
    ckpt_dir = Path(tmp) / "checkpoints" / "stories15M"
    ckpt_dir.mkdir(parents=True)
    ref = Transformer.from_name("stories15M")  # random weights, as a converted checkpoint holds them
    torch.save({k: v.to(precision) for k, v in ref.state_dict().items()}, ckpt_dir / "model.pth")
    del ref
    quantize.quantize(ckpt_dir / "model.pth", mode="int8", label="_")
    model = gen._load_model(ckpt_dir / "model_int8.pth", device, precision, use_tp=False)

print(type(model.layers[0].attention.wqkv).__name__, model.layers[0].attention.wqkv.weight.dtype)
encoded = torch.randint(0, 1024, (12,), device=device, dtype=torch.int64)
torch.manual_seed(1234)
gen.decode_one_token = torch.compile(gen.decode_one_token, mode="reduce-overhead", fullgraph=True)

for i in range(-1, 2):
    gen.device_sync(device=device)
    y, metrics = gen.generate(
        model,
        encoded,
        24,
        batch_size=1,
        draft_model=None,
        speculate_k=5,
        interactive=False,
        callback=lambda x: x,
        temperature=0.8,
        top_k=200,
    )
    print(f"sample {i}: {y[0, -8:].tolist()}")
torch.cuda.synchronize()
print("gpt-fast int8 generate ok", tuple(y.shape))
