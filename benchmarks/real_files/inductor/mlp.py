"""Inductor corpus (kx's code): an MLP block trained one step under torch.compile."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, dim=1024, hidden=4096):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x), approximate="tanh")) + x


model = MLP().cuda()
step = torch.compile(model)
x = torch.randn(64, 1024, device="cuda", requires_grad=True)
loss = step(x).float().pow(2).mean()
loss.backward()
torch.cuda.synchronize()
print("mlp ok", float(loss) > 0)
