"""Corpus driver (kx's code): axolotl's fused LoRA MLP (src/axolotl/kernels/lora.py:
apply_lora_mlp_swiglu -> get_lora_parameters on PEFT-style LoRA layers -> LoRA_MLP, a
torch.autograd.Function under torch.amp.custom_fwd / custom_bwd that computes gate / up / down as
base matmul + scaled LoRA addmm, with the SwiGLU activation and its backward as Triton kernels
(kernels/swiglu.py swiglu_forward / swiglu_backward, registered as torch.ops.axolotl custom ops;
the backward recomputes the activation in place into the saved buffers) and the LoRA A / B and
input gradients by hand), fine-tuned as axolotl does with lora_mlp_kernel: a Llama-3-8B MLP
(4096 -> 14336 -> 4096) in bf16 with rank-16 adapters (alpha 32) on all three projections and
frozen base weights, batch 4 x 1024 tokens, 4 AdamW steps on the adapters, every step's output and
the adapter / input gradients checked against the same LoRA MLP written in PyTorch (fp32 copy)."""

import copy

import _corpus13_support as S
import torch
import torch.nn.functional as F

S.install_bitsandbytes_standin()
S.install_axolotl_logging_standin()
from axolotl.kernels.lora import apply_lora_mlp_swiglu  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
D, FF, RANK, B, T, STEPS = S.pick((4096, 14336, 16, 4, 1024, 4), (64, 128, 4, 2, 16, 2))

mlp, _ = S.lora_mlp(D, FF, RANK, 32, dev, dt)
ref_mlp = copy.deepcopy(mlp).float()


def reference(x):
    m = ref_mlp
    return m.down_proj.reference(F.silu(m.gate_proj.reference(x)) * m.up_proj.reference(x))


params = [p for p in mlp.parameters() if p.requires_grad]
ref_params = [p for p in ref_mlp.parameters() if p.requires_grad]
opt, ref_opt = torch.optim.AdamW(params, lr=1e-3), torch.optim.AdamW(ref_params, lr=1e-3)
for step in range(STEPS):
    x = torch.randn(B, T, D, device=dev, dtype=dt, requires_grad=True)
    x_ref = x.detach().float().requires_grad_()
    out = apply_lora_mlp_swiglu(mlp, x)
    ref = reference(x_ref)
    g = torch.randn_like(ref)
    out.backward(g.to(dt))
    ref.backward(g)
    grad_err = max(S.rel_err(p.grad, q.grad) for p, q in zip(params, ref_params))
    print(
        f"step {step}: out rel err {S.rel_err(out, ref):.1e}, worst adapter grad {grad_err:.1e}, "
        f"dx {S.rel_err(x.grad, x_ref.grad):.1e}"
    )
    opt.step()
    ref_opt.step()
    opt.zero_grad(set_to_none=True)
    ref_opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print("axolotl_lora_mlp_swiglu ok")
