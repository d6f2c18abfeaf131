"""Corpus driver (kx's code): pytorch/examples word_language_model, the Transformer model
trained under torch.compile (forward + backward, clip_grad_norm_, manual SGD update) and
evaluated.

What main.py does with --model Transformer --accel (its other flags at their defaults, the
model widened: --emsize 256 --nhid 512 --nlayers 2 --nhead 4, --bptt 35, --batch_size 20,
--dropout 0.2, --lr 20, --clip 0.25), with the model compiled the way a user adds
`model = torch.compile(model)` after building it, on a random corpus (10,000-word vocabulary)
standing in for Wikitext-2. main.py is a script (argparse and the corpus at import), so the
driver states its batchify / get_batch / train / evaluate: each training batch runs the
compiled model (a square causal float mask built from torch.log(torch.tril(ones)) and cached on
the module, scaled embedding, sinusoidal positional encoding with dropout,
nn.TransformerEncoder, decoder Linear, log_softmax) -> NLLLoss -> loss.backward() ->
clip_grad_norm_ -> p.data.add_(p.grad, alpha=-lr). The last batch of an epoch is shorter than
bptt (dynamic shapes: a recompile), then evaluate() runs the compiled model in eval mode under
no_grad on the validation split (batch size 10).
"""

import math

import torch
import torch.nn as nn
from word_language_model.model import TransformerModel  # the example folder as a namespace package

torch.manual_seed(1111)
device = torch.accelerator.current_accelerator()

ntokens, emsize, nhid, nlayers, nhead, dropout = 10000, 256, 512, 2, 4, 0.2
bptt, batch_size, eval_batch_size, clip = 35, 20, 10, 0.25
lr = 20.0

# a random corpus in place of data.Corpus('./data/wikitext-2'): 1-D LongTensors of word ids
gen = torch.Generator().manual_seed(0)
train_ids = torch.randint(0, ntokens, (batch_size * (4 * bptt + 12) + 7,), generator=gen)
valid_ids = torch.randint(0, ntokens, (eval_batch_size * (2 * bptt + 5) + 3,), generator=gen)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


train_data = batchify(train_ids, batch_size)
val_data = batchify(valid_ids, eval_batch_size)

model = TransformerModel(ntokens, emsize, nhead, nhid, nlayers, dropout).to(device)
model = torch.compile(model)
criterion = nn.NLLLoss()


def train(epoch):
    model.train()
    total_loss = 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        output = model(data)
        output = output.view(-1, ntokens)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        print(f"| epoch {epoch} | batch {batch} | seq {len(data)} | loss {loss.item():5.2f}")
    return total_loss


def evaluate(data_source):
    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output = model(data)
            output = output.view(-1, ntokens)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


train(1)
val_loss = evaluate(val_data)
torch.cuda.synchronize()
print(f"word_language_model transformer ok: valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
