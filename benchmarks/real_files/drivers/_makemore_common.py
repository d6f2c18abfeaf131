"""Shared body of the karpathy/makemore corpus drivers (kx's code): train one of makemore.py's
models on its names.txt with torch.compile, evaluate, and sample names token by token."""

import argparse
import os

import _corpus10_support as S
import torch

S.install_tensorboard_standin()
import makemore as mm  # noqa: E402


def run(model_name: str, config_kw: dict, batch: int, steps: int, samples: int) -> None:
    torch.manual_seed(3407)
    dev = "cuda"
    # makemore's evaluate() and print_samples() read the module-level `args` its __main__ parses
    mm.args = argparse.Namespace(device=dev, top_k=-1)
    names = os.path.join(os.path.dirname(mm.__file__), "names.txt")
    train_ds, test_ds = mm.create_datasets(names)
    config = mm.ModelConfig(
        vocab_size=train_ds.get_vocab_size(), block_size=train_ds.get_output_length(), **config_kw
    )
    if model_name == "transformer":
        model = mm.Transformer(config)
    else:
        model = mm.RNN(config, cell_type=model_name)
    model = model.to(dev)
    print(model_name, f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}M parameters")
    compiled = torch.compile(model)
    # makemore's optimizer settings
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
    loader = mm.InfiniteDataLoader(train_ds, batch_size=batch, pin_memory=False, num_workers=0)
    for step in range(steps):
        X, Y = (t.to(dev) for t in loader.next())
        logits, loss = compiled(X, Y)
        compiled.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % max(1, steps // 5) == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.4f}")
    # evaluation (model.eval(): dropout-free here, but a new grad mode: a recompile) on the test split
    test_loss = mm.evaluate(compiled, test_ds, batch_size=batch, max_batches=4)
    print(f"test loss {test_loss:.4f}")
    # sampling: makemore's generate feeds the growing sequence back one token at a time
    compiled.eval()
    start = torch.zeros(samples, 1, dtype=torch.long, device=dev)
    out = mm.generate(compiled, start, train_ds.get_output_length() - 1, do_sample=True, top_k=None)
    words = []
    for row in out[:, 1:].tolist():
        row = row[: row.index(0)] if 0 in row else row
        words.append(train_ds.decode(row))
    new = [w for w in words if not train_ds.contains(w) and not test_ds.contains(w)]
    print(f"sampled {len(words)} names ({len(new)} new), e.g.", words[:6])
    torch.cuda.synchronize()
