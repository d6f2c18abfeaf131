"""Corpus driver (kx's code): akamaster/pytorch_resnet_cifar10 (the widely used faithful CIFAR
ResNet-20/32/44/56/110 of He et al.: resnet.py's BasicBlock with option-A shortcuts, a
LambdaLayer whose lambda subsamples x[:, :, ::2, ::2] and zero-pads channels with F.pad,
kaiming_normal_ init through _weights_init, global avg_pool2d over the last feature map)
trained with torch.compile through trainer.py's own train() and validate() (AverageMeter,
accuracy() with topk, .cuda() moves, loss.item() / prec1.item() per batch, prints every
print_freq batches): resnet20 compiled as one module, SGD lr 0.1 momentum 0.9 weight decay 1e-4
with MultiStepLR as main() sets them, batch 128, 4 epochs on kx's CIFAR-shaped toy classes (the
last train batch smaller: a second shape). torchvision is a stand-in (trainer.py imports
transforms and datasets at the top; `args` is set on the module as main() would). Checked:
validation precision per epoch and the compiled logits against the eager forward in eval mode."""

import _corpus23_support as S

S.install_resnet_trainer_standins()
import resnet  # noqa: E402
import torch  # noqa: E402
import trainer  # noqa: E402

torch.manual_seed(0)
dev = S.device()
N, B, EPOCHS = S.pick((10000, 128, 4), (40, 16, 1))
_, train_loader, val_loader = S.split_loaders(N, S.pick(2000, 16), B, S.pick(32, 16), seed=0, to_range=False)

trainer.args = S.resnet_trainer_args(half=False, print_freq=S.pick(40, 1))
model = resnet.resnet20().to(dev)
cmodel = torch.compile(model)
criterion = torch.nn.CrossEntropyLoss().to(dev)
opt = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3])
precs = []
for epoch in range(EPOCHS):
    trainer.train(train_loader, cmodel, criterion, opt, epoch)
    sched.step()
    precs.append(trainer.validate(val_loader, cmodel, criterion))
with torch.no_grad():
    xb = val_loader[0][0].to(dev)
    err = S.rel_err(cmodel(xb), model(xb))
S.sync()
print(
    f"akamaster resnet20 compiled, {EPOCHS} epochs via trainer.train/validate: val prec@1 per epoch "
    f"{[round(p, 2) for p in precs]}; compiled vs eager eval logits rel err {err:.1e}"
)
