"""Shared body of corpus 11's kuangliu/pytorch-cifar drivers (kx's code): main.py's recipe
(SGD lr 0.1, momentum 0.9, weight decay 5e-4, CosineAnnealingLR(T_max=200), cross-entropy,
batch 128 of 3 x 32 x 32 normalised with the repo's CIFAR-10 mean / std, 10 classes) with the
network under torch.compile: STEPS of forward + backward + step on random images (labels from a
fixed random teacher, so the loss can fall), then evaluation mode on a test batch of 100 (the
test loader's batch size: a recompile) compared with the eager network."""

import _corpus11_support as S
import torch
import torch.nn as nn

MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
STD = torch.tensor([0.2023, 0.1994, 0.2010]).view(1, 3, 1, 1)


def run(name, net, steps, dev="cuda"):
    torch.manual_seed(0)
    batch, test_batch, img = S.pick((128, 100, 32), (4, 3, 32))
    net = net.to(dev)
    compiled = torch.compile(net)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)
    teacher = torch.randn(3 * img * img, 10, device=dev) / (3 * img * img) ** 0.5
    mean, std = MEAN.to(dev), STD.to(dev)

    def data(n):
        x = torch.rand(n, 3, img, img, device=dev)
        return (x - mean) / std, (x.flatten(1) @ teacher).argmax(-1)

    net.train()
    for step in range(steps):
        inputs, targets = data(batch)
        optimizer.zero_grad()
        outputs = compiled(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
        acc = outputs.argmax(1).eq(targets).float().mean()
        print(f"step {step} loss {loss.item():.4f} acc {acc.item():.3f}")

    net.eval()
    with torch.no_grad():
        inputs, _ = data(test_batch)
        got, want = compiled(inputs), net(inputs)
    print(name, "eval", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
    torch.cuda.synchronize()
