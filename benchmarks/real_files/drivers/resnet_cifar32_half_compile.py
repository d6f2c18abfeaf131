"""Corpus driver (kx's code): akamaster/pytorch_resnet_cifar10's --half mode under torch.compile
(trainer.py: with args.half the model and criterion are .half()'d and train() / validate() cast
every input batch with .half(), so the whole ResNet (resnet.py: BasicBlock with the option-A
LambdaLayer shortcut (strided slice and channel F.pad), BatchNorm in fp16 weights, avg_pool2d,
Linear) trains in pure fp16 with plain SGD, no loss scaling) for resnet32 and, with the same
code, resnet56 (a deeper stack: 27 blocks) compiled as one module; SGD lr 0.1 momentum 0.9 wd
1e-4, batch 128, 2 epochs each on kx's CIFAR-shaped toy classes, validate() after each. The
fp16 logits of the compiled model are compared with the eager fp16 forward and with an fp32
copy of the trained weights. torchvision is a stand-in. Checked: validation precision,
compiled vs eager and fp16 vs fp32 logits."""

import copy

import _corpus23_support as S

S.install_resnet_trainer_standins()
import resnet  # noqa: E402
import torch  # noqa: E402
import trainer  # noqa: E402

torch.manual_seed(0)
dev = S.device()
N, B, EPOCHS = S.pick((6400, 128, 2), (32, 16, 1))
ARCHS = S.pick(["resnet32", "resnet56"], ["resnet20"])
_, train_loader, val_loader = S.split_loaders(N, S.pick(1024, 16), B, S.pick(32, 16), seed=7, to_range=False)
trainer.args = S.resnet_trainer_args(half=True, print_freq=S.pick(25, 1))

res = []
for arch in ARCHS:
    model = resnet.__dict__[arch]().to(dev)
    criterion = torch.nn.CrossEntropyLoss().to(dev)
    model.half()
    criterion.half()
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
    precs = []
    for epoch in range(EPOCHS):
        trainer.train(train_loader, cmodel, criterion, opt, epoch)
        precs.append(trainer.validate(val_loader, cmodel, criterion))
    with torch.no_grad():
        xb = val_loader[0][0].to(dev)
        out = cmodel(xb.half())
        ref32 = copy.deepcopy(model).float()(xb)
        res.append((arch, precs, S.rel_err(out, model(xb.half())), S.rel_err(out, ref32)))
S.sync()
print(
    "akamaster half-precision compiled training: "
    + "; ".join(
        f"{a} val prec@1 {[round(p, 2) for p in p_]} compiled vs eager {e1:.1e}, fp16 vs fp32 {e2:.1e}"
        for a, p_, e1, e2 in res
    )
)
