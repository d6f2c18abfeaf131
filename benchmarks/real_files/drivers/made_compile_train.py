"""Corpus driver (kx's code): Andrej Karpathy's MADE (karpathy/pytorch-made, made.py: MaskedLinear =
nn.Linear whose forward multiplies the weight by a registered mask buffer (set_mask copies a numpy
uint8 mask through .data.copy_); MADE builds degree vectors with a seeded numpy RandomState,
masks from degree comparisons, replicated when nout is a multiple of nin) trained as run.py
trains it on binarised MNIST: one random input ordering (num_masks 1), hidden 500, Adam lr 1e-3
weight decay 1e-4 with StepLR(45, 0.1) per epoch, batches of 100, loss =
binary_cross_entropy_with_logits(sum) / B, then a test epoch under torch.no_grad in eval mode. The
model is torch.compile'd; a deep-copied eager twin trains on the same batches. Data: kx's toy
binarised 28 x 28 rectangle images. Checked: per-step losses, parameters and test loss close to
eager, the training loss falling, and the autoregressive property of the compiled model's
output (the logit of the k-th input in the ordering does not change when inputs later in the
ordering change)."""

import copy

import _corpus21_support as S
import numpy as np
import torch
import torch.nn.functional as F
from made import MADE  # noqa: E402

np.random.seed(42)
torch.manual_seed(42)
dev = S.device()
SIDE, HID, NTR, NTE, EPOCHS = S.pick((28, [500], 20000, 2000, 3), (5, [12], 60, 20, 2))
D = SIDE * SIDE
xtr = torch.from_numpy(S.toy_binary_images(NTR, SIDE, seed=0)).to(dev)
xte = torch.from_numpy(S.toy_binary_images(NTE, SIDE, seed=1)).to(dev)

model = MADE(D, HID, D, num_masks=1).to(dev)
twin = copy.deepcopy(model)
B = S.pick(100, 10)


def train(m, net):
    opt = torch.optim.Adam(m.parameters(), 1e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=45, gamma=0.1)
    losses, tests = [], []
    for _ in range(EPOCHS):
        m.train()
        for step in range(NTR // B):
            xb = xtr[step * B : step * B + B]
            loss = F.binary_cross_entropy_with_logits(net(xb), xb, reduction="sum") / B
            losses.append(loss.item())
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        m.eval()
        with torch.no_grad():
            tests.append(
                np.mean(
                    [
                        (
                            F.binary_cross_entropy_with_logits(
                                net(xte[i : i + B]), xte[i : i + B], reduction="sum"
                            )
                            / B
                        ).item()
                        for i in range(0, NTE, B)
                    ]
                )
            )
    return losses, tests


cnet = torch.compile(model)
lc, tc = train(model, cnet)
le, te = train(twin, twin)
e_loss = max(abs(a - b) / abs(b) for a, b in zip(lc, le))
e_par = S.params_rel_err(model, twin)
e_test = max(abs(a - b) / abs(b) for a, b in zip(tc, te))
# autoregressive check on the compiled model: change the inputs after position k of the ordering
order = np.argsort(model.m[-1])  # input indices in ordering
k = D // 2
x = xte[:4].clone()
x2 = x.clone()
x2[:, torch.as_tensor(order[k:], device=dev)] = 1 - x2[:, torch.as_tensor(order[k:], device=dev)]
with torch.no_grad():
    e_ar = (
        (
            cnet(x)[:, torch.as_tensor(order[: k + 1], device=dev)]
            - cnet(x2)[:, torch.as_tensor(order[: k + 1], device=dev)]
        )
        .abs()
        .max()
        .item()
    )
print(
    f"pytorch-made MADE {D} -> {HID} -> {D}, {len(lc)} compiled steps over {EPOCHS} epochs: loss {lc[0]:.2f} -> {lc[-1]:.2f}, "
    f"test {tc[-1]:.2f}; compiled vs eager: losses {e_loss:.1e}, params {e_par:.1e}, test {e_test:.1e}; autoregressive leak {e_ar:.1e}"
)
assert max(e_loss, e_par, e_test) < 5e-2 and e_ar < 1e-5, (e_loss, e_par, e_test, e_ar)
assert S.small() or lc[-1] < lc[0], (lc[0], lc[-1])
S.sync()
print("made_compile_train ok")
