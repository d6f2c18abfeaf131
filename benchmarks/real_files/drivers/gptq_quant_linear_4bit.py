"""Corpus driver (kx's code): GPTQ-for-LLaMa's 4-bit Triton linear layer (qwopqwop200/GPTQ-for-LLaMa,
triton branch, quant/quant_linear.py: QuantLinear packs a float weight into int32 words (8 x 4-bit
per word, zero points packed likewise, minus one) with its own numpy pack(), and its forward calls
matmul248, which launches matmul_248_kernel through the file's own autotuner
(quant/custom_autotune.py: eight configs, an early pruner that shrinks block sizes to the problem,
autotune keys M / N / K rounded to the nearest power of two, a do_bench sweep per new key) inside
`with torch.cuda.device(...)`; the kernel unpacks weights and zero points with shifts and masks,
gathers per-group scales through g_idx and accumulates tl.dot in fp32). The driver quantises
LLaMa-7B-shaped layers round-to-nearest (corpus 9's helper; group 128 and one whole-row group),
packs them with QuantLinear.pack (the layer holding the quantised weight, as GPTQ leaves it), and runs fp16 activations of 1 .. 2048 tokens (several autotune
keys, one 3-D input) through the layer. Triton 3 renamed do_bench's percentiles= and
triton.compiler.OutOfResources: the driver's shim passes them on. Checked against the fp16 input
times the dequantised weight in fp32 (plus bias)."""

import _corpus21_support as S

S.install_triton2_autotune_shims()
S.bare_package("quant", S.find_on_path("quant"))  # quant/__init__.py imports fused_attn (transformers)
import torch  # noqa: E402
from quant.quant_linear import QuantLinear  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (in, out, group, bias, token counts)
LAYERS = S.pick(
    [
        (4096, 4096, 128, False, [1, 16, 128, 2048]),
        (4096, 11008, 128, True, [7, 512]),
        (11008, 4096, -1, False, [33, 1024]),
    ],
    [(64, 64, 32, True, [3, 17]), (128, 32, -1, False, [5])],
)
BITS = 4

errs, report = [], []
for fin, fout, group, bias, tokens in LAYERS:
    lin = torch.nn.Linear(fin, fout, bias=bias)
    with torch.no_grad():
        lin.weight.mul_(3.0)
        if bias:
            lin.bias.normal_(0, 0.1)
    gs = fin if group == -1 else group
    scales, zeros, g_idx = S.gptq_rtn_params(lin.weight.data, BITS, gs)
    scales = scales.half().float()  # QuantLinear keeps fp16 scales
    w_deq = S.gptq_dequantize(lin.weight.data, scales, zeros, g_idx, BITS)
    lin.weight.data.copy_(w_deq)  # as GPTQ does: the layer holds the quantised weight when packed
    ql = QuantLinear(BITS, group, fin, fout, bias)
    ql.pack(lin, scales.clone(), zeros.clone(), g_idx)
    ql = ql.to(dev)
    wd = w_deq.to(dev)
    for t in tokens:
        x = torch.randn(t, fin, dtype=torch.float16) * 0.5
        if t == tokens[-1]:
            x = x.reshape(1, t, fin)  # a (batch, seq, hidden) input: forward flattens and reshapes
        x = x.to(dev)
        y = ql(x)
        ref = x.float() @ wd.t() + (ql.bias.float() if bias else 0.0)
        errs.append(S.rel_err(y, ref))
    report.append(f"{fin}->{fout} g{group}")
print(
    f"GPTQ-for-LLaMa QuantLinear ({BITS}-bit, Triton matmul_248 with custom autotune) on {len(LAYERS)} layers "
    f"({', '.join(report)}), {len(errs)} inputs: rel err vs dequantised fp32 max {max(errs):.1e}"
)
assert max(errs) < 1e-2, errs
S.sync()
print("gptq_quant_linear_4bit ok")
