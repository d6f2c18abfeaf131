"""Corpus driver (kx's code): axolotl's fused LoRA MLP with the GEGLU activation
(src/axolotl/kernels/lora.py: apply_lora_mlp_geglu -> LoRA_MLP with kernels/geglu.py's Triton
geglu_forward / geglu_backward (exact erf GELU in fp32, the backward writing the activation and
both input gradients in place), registered as torch.ops.axolotl custom ops), as axolotl patches
Gemma-family MLPs: a Gemma-2-2B MLP (2304 -> 9216 -> 2304) in fp16 with rank-32 adapters (alpha
16) on gate / up / down, batch 8 x 512 tokens, 3 AdamW steps on the adapters, then a ragged batch
(3 x 333 tokens); outputs and adapter / input gradients checked against the same LoRA MLP in
PyTorch fp32 with the same initial weights."""

import _corpus13_support as S
import torch
import torch.nn.functional as F

S.install_bitsandbytes_standin()
S.install_axolotl_logging_standin()
from axolotl.kernels.lora import apply_lora_mlp_geglu  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
D, FF, RANK, B, T, STEPS = S.pick((2304, 9216, 32, 8, 512, 3), (64, 96, 4, 2, 16, 2))

mlp, _ = S.lora_mlp(D, FF, RANK, 16, dev, dt, seed=1)
ref_mlp, reference = S.lora_mlp(D, FF, RANK, 16, dev, torch.float32, seed=1)  # same seed: same weights
params = [p for p in mlp.parameters() if p.requires_grad]
ref_params = [p for p in ref_mlp.parameters() if p.requires_grad]
opt, ref_opt = torch.optim.AdamW(params, lr=1e-3), torch.optim.AdamW(ref_params, lr=1e-3)
shapes = [(B, T)] * STEPS + [S.pick((3, 333), (3, 7))]
for step, (b, t) in enumerate(shapes):
    x = torch.randn(b, t, D, device=dev, dtype=dt, requires_grad=True)
    x_ref = x.detach().float().requires_grad_()
    out = apply_lora_mlp_geglu(mlp, x)
    ref = reference(x_ref, F.gelu)
    g = torch.randn_like(ref)
    out.backward(g.to(dt))
    ref.backward(g)
    grad_err = max(S.rel_err(p.grad, q.grad) for p, q in zip(params, ref_params))
    print(
        f"{b} x {t}: out rel err {S.rel_err(out, ref):.1e}, worst adapter grad {grad_err:.1e}, "
        f"dx {S.rel_err(x.grad, x_ref.grad):.1e}"
    )
    if step < STEPS:
        opt.step()
        ref_opt.step()
    opt.zero_grad(set_to_none=True)
    ref_opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print("axolotl_lora_mlp_geglu ok")
