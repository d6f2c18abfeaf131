"""Corpus driver (kx's code): state-spaces/s4's S4D layer (models/s4/s4d.py: S4DKernel builds the
diagonal SSM convolution kernel from complex log_A_real / A_imag / C parameters and a learned
log_dt (Vandermonde-style exp(dtA * arange(L)), real part of a complex einsum); S4D.forward
convolves with it through torch.fft.rfft / irfft at 2L, adds the D skip, GELU and a GLU output
1x1 conv) trained with torch.compile as the repository's example.py trains it on sequential
CIFAR: an encoder Linear(3 -> 256), 4 residual S4D blocks (post-LayerNorm, d_state 64), mean
pooling, a 10-way decoder, batch 32 random 32 x 32 images as 1024-step sequences, AdamW with the
SSM parameters' own lr 1e-3 / no weight decay (their `_optim` attributes) and 1e-2 / 0.01 for the
rest, 5 steps of compiled forward + backward + step, then the compiled vs the eager logits."""

import _corpus13_support as S
import torch
from torch import nn

S.install_s4_dropout_standin()
from models.s4.s4d import S4D  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
D, LAYERS, L, B, STEPS = S.pick((256, 4, 1024, 32, 5), (32, 2, 64, 4, 2))


class SeqModel(nn.Module):  # the layout of s4's example.py (kx's own code)
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(3, D)
        self.layers = nn.ModuleList(
            S4D(D, d_state=64, dropout=0.0, transposed=True, lr=1e-3) for _ in range(LAYERS)
        )
        self.norms = nn.ModuleList(nn.LayerNorm(D) for _ in range(LAYERS))
        self.decoder = nn.Linear(D, 10)

    def forward(self, x):  # (B, L, 3)
        x = self.encoder(x).transpose(-1, -2)
        for layer, norm in zip(self.layers, self.norms):
            z, _ = layer(x)
            x = norm((z + x).transpose(-1, -2)).transpose(-1, -2)
        return self.decoder(x.transpose(-1, -2).mean(1))


model = SeqModel().to(dev)
special = [p for p in model.parameters() if hasattr(p, "_optim")]
plain = [p for p in model.parameters() if not hasattr(p, "_optim")]
opt = torch.optim.AdamW(
    [{"params": plain, "lr": 1e-2, "weight_decay": 0.01}] + [{"params": [p], **p._optim} for p in special]
)
compiled = torch.compile(model)


def batch():
    x = torch.randn(B, 3, L, device=dev).transpose(1, 2).contiguous()  # pixels as a sequence
    return x, torch.randint(0, 10, (B,), device=dev)


for step in range(STEPS):
    x, y = batch()
    loss = nn.functional.cross_entropy(compiled(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")

x, _ = batch()
with torch.no_grad():
    got, want = compiled(x), model(x)
print(f"compiled vs eager logits rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("s4d_compile_train ok")
