"""Corpus driver (kx's code): Lightning-AI/lit-llama's GPTQ int4 linear layer
(lit_llama/quantization.py: ColBlockQuantizedLinear(bits=4, tile_cols=-1), whose forward on a
CUDA tensor calls qlinear_4bit_weight: pads the rows to a multiple of 256 and launches the
autotuned linear_kernel_4bit_weight (10 configs keyed on M / N / K) that unpacks two 4-bit codes
per byte and applies the per-row scale and zero point inside the matmul): Llama-7B's projection
shapes (4096 -> 4096, 4096 -> 11008, 11008 -> 4096, 4096 -> 32000) with random codes packed by
the layer's own pack_weight, fp16 activations of 1, 7, 300 and 2048 rows; every output vs
F.linear on the layer's own get_weight() dequantisation."""

import _corpus14_support as S
import torch
import torch.nn.functional as F

S.install_litllama_standins()
from lit_llama.quantization import ColBlockQuantizedLinear  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
SHAPES = S.pick(((4096, 4096), (4096, 11008), (11008, 4096), (4096, 32000)), ((64, 64), (64, 96)))
ROWS = S.pick((1, 7, 300, 2048), (1, 7))

for i, (fin, fout) in enumerate(SHAPES):
    layer = ColBlockQuantizedLinear(fin, fout, bias=False, bits=4, tile_cols=-1).to(dev)
    S.fill_col_block_quantized(layer, seed=i)
    layer = layer.to(dt)  # scales / zeros in fp16, as a converted checkpoint holds them
    w = layer.get_weight(torch.float32)
    errs = []
    for m in ROWS:
        x = torch.randn(m, fin, device=dev, dtype=dt)
        y = layer(x)
        errs.append(f"M {m}: {S.rel_err(y, F.linear(x.float(), w)):.1e}")
    print(f"{fin} -> {fout}: " + ", ".join(errs))
torch.cuda.synchronize()
print("litllama_gptq_linear ok")
