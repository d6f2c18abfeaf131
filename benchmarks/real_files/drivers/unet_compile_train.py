"""Corpus driver (kx's code): milesial/Pytorch-UNet's U-Net (unet/unet_model.py, unet/unet_parts.py:
DoubleConv (conv-BN-ReLU twice), Down (max-pool + DoubleConv), Up (transposed conv, F.pad to the
skip connection's size when the sizes differ, concatenation), OutConv) trained with torch.compile
as the repo's train.py trains it: Carvana images at the default scale 0.5 (3 x 320 x 479: odd
widths, so Up pads), 2 classes, batch 4, channels_last, fp16 autocast with a GradScaler,
cross-entropy + the repo's multiclass dice_loss (utils/dice_score.py) on softmax outputs, RMSprop
(lr 1e-5, weight decay 1e-8, momentum 0.999, foreach) with gradient clipping at 1.0; 6 steps of
forward + backward + step on random images with blob masks, then evaluation mode (batch norm
running statistics: a recompile) on a batch of 2 vs the eager model."""

import _corpus11_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F
from unet import UNet
from utils.dice_score import dice_loss

torch.manual_seed(0)
dev = "cuda"
H, W, BATCH, STEPS = S.pick((320, 479, 4, 6), (32, 47, 2, 2))

model = UNet(n_channels=3, n_classes=2, bilinear=False).to(dev).to(memory_format=torch.channels_last)
compiled = torch.compile(model)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-5, weight_decay=1e-8, momentum=0.999, foreach=True)
grad_scaler = torch.amp.GradScaler("cuda")
criterion = nn.CrossEntropyLoss()


def batch(n):
    images = torch.rand(n, 3, H, W, device=dev).to(memory_format=torch.channels_last)
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, H, device=dev), torch.linspace(-1, 1, W, device=dev), indexing="ij")
    r = torch.rand(n, 1, 1, device=dev) * 0.5 + 0.3
    masks = ((yy**2 + xx**2)[None] < r**2).long()  # a car-sized blob
    return images, masks


model.train()
for step in range(STEPS):
    images, true_masks = batch(BATCH)
    with torch.autocast("cuda", dtype=torch.float16):
        masks_pred = compiled(images)
        loss = criterion(masks_pred, true_masks)
        loss += dice_loss(
            F.softmax(masks_pred, dim=1).float(),
            F.one_hot(true_masks, model.n_classes).permute(0, 3, 1, 2).float(),
            multiclass=True,
        )
    optimizer.zero_grad(set_to_none=True)
    grad_scaler.scale(loss).backward()
    grad_scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    grad_scaler.step(optimizer)
    grad_scaler.update()
    print(f"step {step} loss {loss.item():.4f}")

model.eval()
images, _ = batch(2)
with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
    got, want = compiled(images), model(images)
print("eval", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("unet compile train ok")
