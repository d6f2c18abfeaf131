"""Corpus driver (kx's code): Meta's schedule-free AdamW (facebookresearch/schedule_free,
schedulefree/adamw_schedulefree.py: AdamWScheduleFree.step keeps z and the interpolated y in
the parameters, python-float warmup schedule and Polyak weights from group['k'] / weight_sum,
torch._foreach_* updates (mul_, addcmul_, div, sqrt_, lerp_, add_ with python-float alphas);
train() / eval() swap the parameters between y and x with lerp_) with both the model and the
optimizer step under torch.compile (torch.compile(opt.step), as PyTorch's compiled-optimizer
recipe does), training a CIFAR-sized convnet (the layout of the repo's examples/mnist Net,
widened: Conv-ReLU-Conv-ReLU-MaxPool, dropout, two Linear) with warmup_steps 5 for a few dozen
steps, switching the optimizer to eval() for a validation pass and back to train(). A twin
model stepped by the eager optimizer on the same batches is checked against the compiled one
(parameters after training, in eval mode)."""

import copy

import _corpus18_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F
from schedulefree import AdamWScheduleFree

torch.manual_seed(0)
dev = "cuda"
B, C, HW, STEPS = S.pick((256, 64, 32, 30), (8, 8, 12, 7))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, C, 3, 1)
        self.conv2 = nn.Conv2d(C, 2 * C, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(2 * C * ((HW - 4) // 2) ** 2, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = self.dropout1(F.max_pool2d(x, 2))
        x = self.dropout2(F.relu(self.fc1(torch.flatten(x, 1))))
        return F.log_softmax(self.fc2(x), dim=1)


model = Net().to(dev)
twin = copy.deepcopy(model)
opt = AdamWScheduleFree(model.parameters(), lr=2.5e-3, warmup_steps=5, weight_decay=1e-4)
opt_twin = AdamWScheduleFree(twin.parameters(), lr=2.5e-3, warmup_steps=5, weight_decay=1e-4)
cmodel = torch.compile(model)
cstep = torch.compile(opt.step)
g = torch.Generator().manual_seed(1)
for step in range(STEPS):
    data = torch.randn(B, 3, HW, HW, generator=g).to(dev)
    target = torch.randint(0, 10, (B,), generator=g).to(dev)
    for m, o, fwd, stp in ((model, opt, cmodel, cstep), (twin, opt_twin, twin, opt_twin.step)):
        m.train()
        o.train()
        m.dropout1.p = m.dropout2.p = 0.0  # same forward for the twins (dropout RNG differs under compile)
        o.zero_grad()
        loss = F.nll_loss(fwd(data), target)
        loss.backward()
        stp()
    if step % 5 == 0 or step == STEPS - 1:
        model.eval()
        opt.eval()
        with torch.no_grad():
            val = F.nll_loss(cmodel(data), target)
        print(
            f"step {step}: train loss {loss.item():.4f}, eval-mode loss {val.item():.4f}, lr {opt.param_groups[0]['scheduled_lr']:.2e}"
        )
        assert torch.isfinite(val)

opt.eval()
opt_twin.eval()
err = max(S.rel_err(p, q) for p, q in zip(model.parameters(), twin.parameters()))
print(f"{STEPS} steps: x (eval-mode) parameters compiled vs eager optimizer worst rel err {err:.1e}")
assert opt.param_groups[0]["k"] == STEPS and err < 1e-3, err
torch.cuda.synchronize()
print("schedulefree_compile_train ok")
