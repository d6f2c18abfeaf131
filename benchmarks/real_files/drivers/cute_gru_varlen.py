"""Corpus driver (kx's code): open-lm-engine/cute-kernels' multi-head GRU in Triton
(fma/modules/gru: gru(), an autograd.Function over four Triton kernels in
triton_implementation/: forward.py / backward.py for a dense (B, S, N, H) batch and
forward_varlen.py / backward_varlen.py for packed sequences given by cu_seqlens, with max_seqlen
a device tensor the kernel reads (IS_MAX_SEQLEN_TENSOR); the recurrence
h' = f * h + (1 - f) * tanh((r * h) @ W + x) with per-head forget / reset gates, the state gradient
optionally clipped in backward; libraries' custom_op registrations around each launch) as a
recurrent layer trains: bf16, 16 heads of 64, a dense batch of 8 x 1024 steps with an initial
state, then 12 packed documents of random lengths (cu_seqlens, 12,288 tokens), forward + backward
with gradient clipping, compared with the package's own torch backend (KernelBackend.torch) in
fp32."""

import _corpus10_support as S
import torch

S.bare_package("fma")
S.bare_package("fma.modules")
from fma.kernel_backend import KernelBackend  # noqa: E402
from fma.modules.gru import gru  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, SEQ, N, H, DOCS = S.pick((8, 1024, 16, 64, 12), (2, 6, 2, 16, 3))


def leaf(*shape, scale=1.0, dtype=dt):
    return (torch.randn(*shape, device=dev) * scale).to(dtype).requires_grad_()


def run(inputs, backend, **kw):
    xs = [t.detach().clone().float().requires_grad_() if backend is KernelBackend.torch else t for t in inputs]
    out = gru(*xs, kernel_backend=backend, **kw)
    (out.float() * dout.float()).sum().backward()
    grads = [t.grad.clone() for t in xs]
    for t in xs:
        t.grad = None
    return out, grads


def compare(name, inputs, **kw):
    out, grads = run(inputs, KernelBackend.triton, **kw)
    ref, ref_grads = run(inputs, KernelBackend.torch, **{k: (v.float() if torch.is_tensor(v) and v.is_floating_point() else v) for k, v in kw.items()})
    print(
        name, tuple(inputs[0].shape), f"out rel err {S.rel_err(out, ref):.1e}",
        "grads " + " ".join(f"{S.rel_err(g, r):.1e}" for g, r in zip(grads, ref_grads, strict=True)),
    )


# dense batch with an initial state
weights = [leaf(N, H, H, scale=H**-0.5) for _ in range(3)]
x, f_in, r_in = (leaf(B, SEQ, N, H) for _ in range(3))
state = torch.randn(B, N, H, device=dev).to(dt)
dout = torch.randn(B, SEQ, N, H, device=dev, dtype=dt)
inputs = [x, weights[0], f_in, weights[1], r_in, weights[2]]
compare("dense", inputs, input_state=state)

# packed documents: cu_seqlens, max_seqlen as a host int and as a device tensor
lengths = torch.randint(SEQ // 4, 2 * SEQ, (DOCS,))
cu = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)]).to(torch.int32).to(dev)
T = int(lengths.sum())
x, f_in, r_in = (leaf(T, N, H) for _ in range(3))
dout = torch.randn(T, N, H, device=dev, dtype=dt)
inputs = [x, weights[0], f_in, weights[1], r_in, weights[2]]
# (the Triton path saves max_seqlen for backward, so training passes it as a device tensor)
compare("varlen", inputs, cu_seqlens=cu, max_seqlen=lengths.max().to(dev), gradient_clipping=1.0)
torch.cuda.synchronize()
print("cute-kernels gru ok")
