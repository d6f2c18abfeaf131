"""Corpus driver (kx's code): minGPT training through mingpt.trainer.Trainer with the GPT compiled.

What projects/chargpt does (a char-level dataset, GPT.get_default_config, Trainer), on random
characters, with the model handed to the Trainer as `torch.compile(model)`: the Trainer calls
GPT.configure_optimizers (AdamW, two weight-decay groups) through the compiled wrapper, then
forward (manual masked-softmax attention, NewGELU, dropout 0.1 everywhere) + loss.backward()
+ clip_grad_norm_ + optimizer.step() for a few iterations.
"""

import torch
from mingpt.model import GPT
from mingpt.trainer import Trainer
from mingpt.utils import set_seed
from torch.utils.data import Dataset

set_seed(3407)


class RandomCharDataset(Dataset):
    """chargpt's CharDataset, on random characters instead of input.txt."""

    def __init__(self, vocab_size=65, block_size=128, n_chars=100_000):
        self.vocab_size, self.block_size = vocab_size, block_size
        self.data = torch.randint(0, vocab_size, (n_chars,), dtype=torch.long)

    def get_vocab_size(self):
        return self.vocab_size

    def get_block_size(self):
        return self.block_size

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        chunk = self.data[idx : idx + self.block_size + 1]
        return chunk[:-1], chunk[1:]


train_dataset = RandomCharDataset()

model_config = GPT.get_default_config()
model_config.model_type = None
model_config.n_layer, model_config.n_head, model_config.n_embd = 4, 8, 256
model_config.vocab_size = train_dataset.get_vocab_size()
model_config.block_size = train_dataset.get_block_size()
model = GPT(model_config).to("cuda")

train_config = Trainer.get_default_config()
train_config.learning_rate = 5e-4
train_config.batch_size = 32
train_config.max_iters = 4
train_config.num_workers = 0
train_config.device = "cuda"
trainer = Trainer(train_config, torch.compile(model), train_dataset)


def batch_end_callback(trainer):
    print(f"iter {trainer.iter_num}: train loss {trainer.loss.item():.5f}")


trainer.set_callback("on_batch_end", batch_end_callback)
trainer.run()
torch.cuda.synchronize()
print("mingpt trainer ok", trainer.iter_num, type(trainer.optimizer).__name__)
