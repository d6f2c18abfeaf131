"""Corpus driver (kx's code): sharpness-aware minimisation on a Wide ResNet (davda54/sam, sam.py: SAM
wraps SGD; first_step computes the (adaptive: |w|-weighted) global gradient norm over all
parameters with torch.stack / norm, saves each parameter in state["old_p"] and climbs to
w + e(w); second_step restores p.data and runs the base optimizer; example/model/
wide_res_net.py: WideResNet with BasicUnit / DownsampleUnit blocks built from OrderedDicts,
in-place ReLU and Dropout; example/model/smooth_cross_entropy.py: label smoothing through
scatter_ and kl_div; example/utility/bypass_bn.py: enable / disable_running_stats set every
BatchNorm's momentum to 0 and back) trained as example/train.py trains it (adaptive SAM, rho
2.0, SGD lr 0.1 momentum 0.9 weight decay 5e-4, label smoothing 0.1, two forward-backward passes
per batch with BN statistics frozen on the second), on kx's CIFAR-shaped toy classes. The model
is torch.compile'd: the first pass runs with BN momentum 0.1, the second with momentum 0 (a
module attribute dynamo guards on), evaluation in eval mode (a third graph). Checked: training
accuracy, held-out accuracy, and the compiled eval logits against the eager model's forward."""

import _corpus22_support as S
import torch
from model.smooth_cross_entropy import smooth_crossentropy  # noqa: E402
from model.wide_res_net import WideResNet  # noqa: E402
from sam import SAM  # noqa: E402
from utility.bypass_bn import disable_running_stats, enable_running_stats  # noqa: E402

torch.manual_seed(42)
dev = S.device()
DEPTH, WIDTH, B, STEPS, NTR = S.pick((16, 4, 128, 150, 12800), (10, 1, 8, 3, 48))
x_all, y_all = S.toy_cifar(NTR + 1024 if not S.small() else NTR + 16, seed=0)
xtr, ytr = x_all[:NTR].to(dev), y_all[:NTR].to(dev)
xte, yte = x_all[NTR:].to(dev), y_all[NTR:].to(dev)

model = WideResNet(DEPTH, WIDTH, 0.0, in_channels=3, labels=10).to(dev)
optimizer = SAM(
    model.parameters(), torch.optim.SGD, rho=2.0, adaptive=True, lr=0.1, momentum=0.9, weight_decay=5e-4
)
cmodel = torch.compile(model)

correct = []
for step in range(STEPS):
    i = (step * B) % (NTR - B + 1)
    inputs, targets = xtr[i : i + B], ytr[i : i + B]
    model.train()
    enable_running_stats(model)
    predictions = cmodel(inputs)
    loss = smooth_crossentropy(predictions, targets, smoothing=0.1)
    loss.mean().backward()
    optimizer.first_step(zero_grad=True)
    disable_running_stats(model)
    smooth_crossentropy(cmodel(inputs), targets, smoothing=0.1).mean().backward()
    optimizer.second_step(zero_grad=True)
    with torch.no_grad():
        correct.append((predictions.argmax(1) == targets).float().mean().item())

model.eval()
with torch.no_grad():
    logits = cmodel(xte)
    acc = (logits.argmax(1) == yte).float().mean().item()
    err = S.rel_err(logits, model.forward(xte))
q = max(1, STEPS // 4)
S.sync()
print(
    f"SAM (adaptive, rho 2) on compiled WRN-{DEPTH}-{WIDTH}, {STEPS} steps of {B}: train acc first quarter "
    f"{sum(correct[:q]) / q:.3f} -> last {sum(correct[-q:]) / q:.3f}, loss {loss.mean().item():.3f}; held-out acc {acc:.3f}; "
    f"compiled vs eager eval logits rel err {err:.1e}"
)
