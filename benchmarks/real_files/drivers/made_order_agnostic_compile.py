"""Corpus driver (kx's code): MADE's order- and connectivity-agnostic training (karpathy/pytorch-made,
made.py: with num_masks > 1, update_masks() draws the next seed's input ordering and hidden
degrees with numpy and rewrites every MaskedLinear's mask buffer in place (set_mask ->
mask.data.copy_), cycling through num_masks seeds) run as run.py runs it with -n 4 -r 20 -s 4 and
two hidden layers (-q 500,500): masks resampled every 20 training steps, and at test time the
logits averaged over 4 mask samples, update_masks() before each. The model is torch.compile'd
once; the new masks reach the compiled graph as mutated buffers (no recompilation expected).
Adam lr 1e-3 weight decay 1e-4, StepLR(45, 0.1), batches of 100, BCE-with-logits sum / B as in
run.py. A deep-copied eager twin (its own mask seed cycle, in step) trains on the same batches.
Data: kx's toy binarised rectangle images. Checked: per-step losses, parameters, the mask
buffers and the ensemble test loss close to eager."""

import copy

import _corpus21_support as S
import numpy as np
import torch
import torch.nn.functional as F
from made import MADE  # noqa: E402

np.random.seed(42)
torch.manual_seed(42)
dev = S.device()
SIDE, HID, NTR, NTE, EPOCHS, B = S.pick((28, [500, 500], 12000, 1000, 2, 100), (5, [12, 12], 60, 20, 2, 10))
NUM_MASKS, RESAMPLE, SAMPLES = 4, S.pick(20, 2), 4
D = SIDE * SIDE
xtr = torch.from_numpy(S.toy_binary_images(NTR, SIDE, seed=0)).to(dev)
xte = torch.from_numpy(S.toy_binary_images(NTE, SIDE, seed=1)).to(dev)

model = MADE(D, HID, D, num_masks=NUM_MASKS).to(dev)
twin = copy.deepcopy(model)


def run_epoch(m, net, split, opt):
    torch.set_grad_enabled(split == "train")
    m.train() if split == "train" else m.eval()
    nsamples = 1 if split == "train" else SAMPLES
    x = xtr if split == "train" else xte
    losses = []
    for step in range(x.size(0) // B):
        xb = x[step * B : step * B + B]
        xbhat = torch.zeros_like(xb)
        for _ in range(nsamples):
            if step % RESAMPLE == 0 or split == "test":
                m.update_masks()
            xbhat += net(xb)
        xbhat /= nsamples
        loss = F.binary_cross_entropy_with_logits(xbhat, xb, reduction="sum") / B
        losses.append(loss.item())
        if split == "train":
            opt.zero_grad()
            loss.backward()
            opt.step()
    torch.set_grad_enabled(True)
    return losses


res = {}
for name, m, net in (("compiled", model, torch.compile(model)), ("eager", twin, twin)):
    opt = torch.optim.Adam(m.parameters(), 1e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=45, gamma=0.1)
    tr, te = [], []
    for _ in range(EPOCHS):
        tr += run_epoch(m, net, "train", opt)
        sched.step()
        te.append(np.mean(run_epoch(m, net, "test", None)))
    res[name] = (tr, te)
(lc, tc), (le, tt) = res["compiled"], res["eager"]
e_loss = max(abs(a - b) / abs(b) for a, b in zip(lc, le))
e_par = S.params_rel_err(model, twin)
e_mask = max((p - q).abs().max().item() for p, q in zip(model.buffers(), twin.buffers()))
e_test = max(abs(a - b) / abs(b) for a, b in zip(tc, tt))
print(
    f"pytorch-made MADE {D} -> {HID} -> {D}, {NUM_MASKS} orderings resampled every {RESAMPLE} steps, {len(lc)} compiled steps: "
    f"loss {lc[0]:.2f} -> {lc[-1]:.2f}, {SAMPLES}-mask ensemble test {tc[-1]:.2f}; compiled vs eager: losses {e_loss:.1e}, "
    f"params {e_par:.1e}, masks {e_mask:.0e}, test {e_test:.1e}"
)
assert max(e_loss, e_par, e_test) < 5e-2 and e_mask == 0, (e_loss, e_par, e_test, e_mask)
assert S.small() or lc[-1] < lc[0], (lc[0], lc[-1])
S.sync()
print("made_order_agnostic_compile ok")
