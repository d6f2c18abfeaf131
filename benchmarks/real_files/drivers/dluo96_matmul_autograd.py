"""Corpus driver (kx's code): dluo96/triton-kernels' matmul as an autograd Function
(tk/matmul_module.py: MatMul whose forward runs tk/matmul.py's kernel_matmul_naive through
the generic matmul(a, b, kernel_matmul, bs=16) launcher (a 2-D grid from a meta lambda, 2-D
offset and mask helpers as @triton.jit functions), and whose backward calls MatMul.apply again
on transposed (non-contiguous) views for dA = dC B^T and dB = A^T dC) used as the two layers of
a small MLP (Linear weights as plain tensors) trained for a few SGD steps on a regression
target, next to a twin with torch.matmul. Checked: losses, gradients and final weights close."""

import _corpus20_support as S
import torch
from tk.matmul_module import MatMul

torch.manual_seed(0)
dev = S.device()
N, DIN, DH, DOUT, STEPS = S.pick((2048, 512, 1024, 256, 5), (48, 16, 32, 8, 2))

x = torch.randn(N, DIN, device=dev)
y = torch.tanh(x @ torch.randn(DIN, DOUT, device=dev) / DIN**0.5)
w0 = [torch.randn(DIN, DH, device=dev) / DIN**0.5, torch.randn(DH, DOUT, device=dev) / DH**0.5]
runs = {}
for name, mm in (("triton", MatMul.apply), ("torch", torch.matmul)):
    w = [t.clone().requires_grad_() for t in w0]
    losses, grads = [], None
    for step in range(STEPS):
        h = torch.relu(mm(x, w[0]))
        loss = ((mm(h, w[1]) - y) ** 2).mean()
        loss.backward()
        if step == 0:
            grads = [t.grad.clone() for t in w]
        with torch.no_grad():
            for t in w:
                t -= 0.5 * t.grad
                t.grad = None
        losses.append(loss.item())
    runs[name] = (losses, grads, [t.detach() for t in w])

(lt, gt, wt), (lr, gr, wr) = runs["triton"], runs["torch"]
e_loss = max(abs(a - b) / abs(b) for a, b in zip(lt, lr))
e_grad = max(S.rel_err(a, b) for a, b in zip(gt, gr))
e_w = max(S.rel_err(a, b) for a, b in zip(wt, wr))
print(
    f"MLP {DIN} -> {DH} -> {DOUT} on {N} rows with Triton MatMul fwd + bwd, {STEPS} SGD steps: loss {lt[0]:.4f} -> {lt[-1]:.4f}; "
    f"vs torch.matmul: losses {e_loss:.1e}, first grads {e_grad:.1e}, weights {e_w:.1e}"
)
assert e_loss < 5e-2 and e_grad < 5e-2 and e_w < 5e-2, (e_loss, e_grad, e_w)
S.sync()
print("dluo96_matmul_autograd ok")
