"""Corpus driver (kx's code): the backward half of GPTQ-for-LLaMa's Triton QuantLinear
(qwopqwop200/GPTQ-for-LLaMa, triton branch, quant/quant_linear.py: QuantLinearFunction is a
torch.autograd.Function under torch.cuda.amp custom_fwd(cast_inputs=float16) / custom_bwd whose
backward computes the input gradient with transpose_matmul248, which launches
transpose_matmul_248_kernel (unpack the int32 weight words, subtract the packed zero points,
scale per group through g_idx, tl.trans the tile, tl.dot with the output gradient) under the file's
custom autotuner (eight configs, no pruner, keys rounded to the nearest power of two, a do_bench
sweep per new key: quant/custom_autotune.py)). The driver packs 2-bit and 8-bit layers (the
other two bit widths QuantLinear takes, so other shift / mask constants and words per row),
runs fp16 activations that require grad forward (matmul_248_kernel) and backward through the
layer, and compares the output and the input gradient with the dequantised weight in fp32.
Triton 3 renamed do_bench's percentiles= and triton.compiler.OutOfResources: the driver's shim
passes them on."""

import _corpus21_support as S

S.install_triton2_autotune_shims()
S.bare_package("quant", S.find_on_path("quant"))  # quant/__init__.py imports fused_attn (transformers)
import torch  # noqa: E402
from quant.quant_linear import QuantLinear  # noqa: E402

torch.manual_seed(0)
dev = S.device()
# (bits, in, out, group, token counts): in a multiple of 256 and out of 128 (the backward kernel's
# unmasked K / N tiles), as LLaMa's 4096 / 11008 are
LAYERS = S.pick(
    [(8, 4096, 4096, 128, [512, 2048]), (2, 4096, 11008, 64, [77, 1024]), (8, 11008, 4096, 128, [256])],
    [(8, 256, 128, 64, [5]), (2, 256, 128, 128, [19])],
)

report, worst = [], 0.0
for bits, fin, fout, group, tokens in LAYERS:
    lin = torch.nn.Linear(fin, fout, bias=False)
    scales, zeros, g_idx = S.gptq_rtn_params(lin.weight.data, bits, group)
    scales = scales.half().float()  # QuantLinear keeps fp16 scales
    w_deq = S.gptq_dequantize(lin.weight.data, scales, zeros, g_idx, bits)
    lin.weight.data.copy_(w_deq)  # as GPTQ does: the layer holds the quantised weight when packed
    ql = QuantLinear(bits, group, fin, fout, False)
    ql.pack(lin, scales.clone(), zeros.clone(), g_idx)
    ql = ql.to(dev)
    wd = w_deq.to(dev)
    for t in tokens:
        x = (torch.randn(t, fin, device=dev) * 0.5).half().requires_grad_()
        y = ql(x)
        g = torch.randn(t, fout, device=dev).half()
        (y.float() * g.float()).sum().backward()
        e_out = S.rel_err(y, x.detach().float() @ wd.t())
        e_dx = S.rel_err(x.grad, g.float() @ wd)
        worst = max(worst, e_out, e_dx)
        report.append(f"{bits}-bit {fin}->{fout} x{t}: out {e_out:.1e} dx {e_dx:.1e}")
print("GPTQ-for-LLaMa QuantLinear forward + Triton transpose_matmul_248 backward: " + "; ".join(report))
assert worst < 1e-2, worst
S.sync()
print("gptq_quant_linear_bwd ok")
