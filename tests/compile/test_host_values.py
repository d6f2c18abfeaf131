"""Real values for what the host computes (issue 50, item 1): data the file makes itself,
on the host or on the GPU from host data, is known to the capture within a memory budget,
so its reads are exact (no placeholder, no exit 5) and steer the file as on a GPU; only
what a kernel wrote, and what is past the budget, is a placeholder. The files are written
here in the styles of the code that reads such data (varlen attention's offsets, a
bitsandbytes/GPTQ-style quantiser, fused-dropout seeding)."""

from __future__ import annotations

import textwrap

from kx_core.compile import CompileRequest, compile_file

HEADER = """\
import time
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def fill(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, value, mask=offs < n)
"""


def run(tmp_path, body: str):
    f = tmp_path / "case.py"
    f.write_text(HEADER + textwrap.dedent(body))
    return compile_file(CompileRequest(str(f), target="cuda:90"), use_cache=False), f.read_text()


def placeholders(r) -> list[str]:
    return [str(d) for d in r.diagnostics if d.kind == "placeholder"]


def launches(r, name: str = "fill") -> list[dict]:
    return [
        {a.name: a.value for a in k.launch.args} | dict(k.launch.constexprs) | {"grid": k.launch.grid}
        for k in r.kernels
        if k.name == name and k.launch
    ]


def line_of(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


def test_reads_of_data_the_file_made_are_exact_and_steer_its_launches(tmp_path):
    """Each read of host-made data a real run makes (item, tolist, equal, allclose, nonzero,
    a size from a 0-d tensor, .cpu()) answers the real value, on tensors past the old
    64K-element limit: the launches sized by them are a real run's, and nothing is a
    placeholder (they were, and the capture exited 5)."""
    r, text = run(
        tmp_path,
        """
        lens = torch.tensor([17, 300, 5, 40000, 31000], device="cuda")
        cu = torch.zeros(len(lens) + 1, dtype=torch.int32, device="cuda")
        cu[1:] = lens.cumsum(0)
        total = torch.empty((cu[-1], 8), device="cuda")      # a size from a 0-d tensor
        ids = torch.arange(cu[-1].item(), device="cuda")     # 71322 elements
        seq = torch.repeat_interleave(torch.arange(len(lens), device="cuda"), lens)
        mask = (ids % 7 == 0) & (seq > 2)
        hits = torch.nonzero(mask)                           # a data-dependent size
        same = torch.equal(seq[cu[3]:cu[4]], torch.full((40000,), 3, device="cuda"))
        close = torch.allclose(ids.float().mean(), torch.tensor(35660.5, device="cuda"))
        lengths = lens.tolist()
        longest = lens.cpu().max().item()
        out = torch.empty(total.shape[0], device="cuda")
        fill[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), float(hits.shape[0]), BLOCK=1024)
        if same and close:
            fill[(triton.cdiv(longest, 256),)](out, longest, float(lengths[3]), BLOCK=256)
        """,
    )
    assert r.exit_status == 0 and r.launched_after_placeholder is None, r.diagnostics
    assert not placeholders(r), placeholders(r)
    first, second = launches(r)
    # the real run's numbers: 71322 rows; ids divisible by 7 in sequences 3 and 4 (rows
    # 322..71321): 10143 of them; the longest sequence 40000
    assert first["grid"] == (70, 1, 1) and first["n"] == 71322 and first["value"] == 10143.0
    assert second["grid"] == (157, 1, 1) and second["n"] == 40000 and second["value"] == 40000.0


def test_a_budget_for_copies_that_are_freed_with_their_tensors(tmp_path):
    """Host-made data is known within a budget of bytes held at once (256 MiB): a 200 MiB
    range is known, and so is a second one made after the first died (its copy is freed
    with it); 2 GiB of ones are past the budget: never computed on the CPU (the file times
    it), and their read is a placeholder, said at its line."""
    r, text = run(
        tmp_path,
        """
        x = torch.arange(50_000_000, dtype=torch.int32, device="cuda")   # 200 MiB
        a = x[-1].item()
        del x
        y = torch.full((50_000_000,), 3, dtype=torch.int32, device="cuda")  # 200 MiB again
        b = y.sum().item()
        out = torch.empty(1024, device="cuda")
        fill[(triton.cdiv(b // 100_000, 256),)](out, a % 1000 + 1, 1.0, BLOCK=256)
        start = time.perf_counter()
        z = torch.ones(1 << 29, device="cuda")                           # 2 GiB
        s = z.sum()
        elapsed = time.perf_counter() - start
        print(f"a={a} b={b} huge_ms={elapsed * 1000:.0f}")
        c = s.item()
        """,
    )
    assert r.exit_status == 0, r.diagnostics
    assert "a=49999999 b=150000000" in r.output, r.output
    (k,) = launches(r)
    assert k["n"] == 1000 and k["grid"] == (6, 1, 1)  # 49999999 % 1000 + 1; 1500 / 256
    assert [d.line for d in r.diagnostics if d.kind == "placeholder"] == [line_of(text, "c = s.item()")]
    huge_ms = int(r.output.split("huge_ms=")[1].split()[0])
    assert huge_ms < 500, huge_ms  # making and summing 2 GiB on this CPU takes seconds


QUANTISER = """
torch.manual_seed(0)


@triton.jit
def dequant_matvec(q_ptr, s_ptr, x_ptr, y_ptr, K, HALF_K: tl.constexpr, BLOCK_K: tl.constexpr,
                   HAS_OUTLIERS: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    packed = tl.load(q_ptr + row * HALF_K + offs, mask=offs < HALF_K, other=0)
    lo = (packed & 15).to(tl.int8)
    lo = tl.where(lo > 7, lo - 16, lo).to(tl.float32)
    x = tl.load(x_ptr + 2 * offs, mask=2 * offs < K, other=0.0)
    acc = tl.sum(lo * x, axis=0) * tl.load(s_ptr + row)
    if HAS_OUTLIERS:
        acc = acc * 0.5
    tl.store(y_ptr + row, acc)


class Int4Linear:
    \"\"\"Round-to-nearest int4 per output row, packed two to a byte on the host.\"\"\"

    def __init__(self, linear):
        w = linear.weight.data.cpu().float()           # the weights, back on the host
        self.scale = (w.abs().amax(dim=1) / 7).clamp(min=1e-8)
        q = torch.clamp(torch.round(w / self.scale[:, None]), -8, 7).to(torch.int8)
        self.packed = ((q[:, 0::2] & 15) | ((q[:, 1::2] & 15) << 4)).to(torch.uint8)
        # the host decides from the data, as GPTQ-style quantisers do (outlier rows)
        self.outliers = int((w.abs().amax(dim=1) > 2 * w.abs().mean()).sum())
        self.n, self.k = w.shape
        self.packed, self.scale = self.packed.cuda(), self.scale.cuda()

    def __call__(self, x):
        y = torch.empty(self.n, device="cuda")
        block = triton.next_power_of_2(self.k // 2)
        dequant_matvec[(self.n,)](self.packed, self.scale, x, y, self.k, HALF_K=self.k // 2,
                                  BLOCK_K=block, HAS_OUTLIERS=self.outliers > 0)
        return y


model = torch.nn.Sequential(torch.nn.Linear(1024, 768, bias=False), torch.nn.Linear(768, 512, bias=False))
model = model.cuda()
layers = [Int4Linear(layer) for layer in model]
x = torch.randn(1024, device="cuda")
for layer in layers:
    x = layer(x)
print("outliers", [layer.outliers for layer in layers])
"""


def test_a_quantiser_reads_the_weights_it_made_on_the_host(tmp_path):
    """bitsandbytes/GPTQ style: a model made on the host (no device), moved with .cuda(),
    each weight copied back with .cpu(), quantised on the host, and a constexpr of the
    kernel decided by the data. A real run's weights are the CPU generator's numbers, and
    so are kx's now: exit 0, no placeholder (it was a `.cpu()` placeholder and exit 5), and
    the constexpr is the real run's."""
    import torch

    r, _ = run(tmp_path, QUANTISER)
    assert r.exit_status == 0 and r.launched_after_placeholder is None, r.diagnostics
    assert not placeholders(r), placeholders(r)
    # the same host code on real CPU tensors
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 768, bias=False), torch.nn.Linear(768, 512, bias=False))
    expected = []
    for layer in model:
        w = layer.weight.data.float()
        expected.append(int((w.abs().amax(dim=1) > 2 * w.abs().mean()).sum()))
    assert f"outliers {expected}" in r.output, (r.output, expected)
    got = [k["HAS_OUTLIERS"] for k in launches(r, "dequant_matvec")]
    assert expected == [106, 0]  # (the first layer has outlier rows, the second none)
    assert got == [True, False] and [k["HALF_K"] for k in launches(r, "dequant_matvec")] == [512, 384]


def test_a_dropout_kernel_gets_the_generators_real_seed_and_offset(tmp_path):
    """Fused-dropout libraries read the CUDA generator's 16-byte state (seed, then philox
    offset, int64) and pass both to their kernel. The offset is where PyTorch's own random
    ops on the GPU left it: each advances it by 4 counters per element group a thread of its
    grid draws (ATen's calc_execution_policy, on the capture GPU's 132 SMs of 2048 threads).
    Before, the offset stayed 0. After torch.cuda.manual_seed the seed is the new one and
    the offset 0; after an op whose draws kx does not model, the read is a placeholder."""
    r, text = run(
        tmp_path,
        """
        @triton.jit
        def dropout(x_ptr, n, seed, offset, p, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            keep = tl.rand(seed, offset + offs) > p
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(x_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=offs < n)


        def seed_and_offset(increment):
            gen = torch.cuda.default_generators[torch.cuda.current_device()]
            state = gen.get_state()
            seed, offset = state.view(torch.int64)
            gen.set_offset(int(offset) + (increment + 3) // 4 * 4)
            return int(seed), int(offset)


        torch.manual_seed(1234)
        x = torch.randn(1000, 1000, device="cuda")               # 4 counters
        y = F.dropout(x, 0.1)                                    # 4
        w = torch.empty(300, 300, device="cuda").uniform_()      # 4
        d = torch.randn(1 << 22, device="cuda", dtype=torch.float64)  # 32 (two a draw)
        b = torch.bernoulli(torch.full((64,), 0.5, device="cuda"))    # 12 (a tensor of p)
        seed, offset = seed_and_offset(x.numel())
        dropout[(1000,)](x, x.numel(), seed, offset, 0.1, BLOCK=1024)
        seed, offset = torch.cuda.get_rng_state().view(torch.int64).tolist()
        print("after the first", seed, offset)
        dropout[(1000,)](x, x.numel(), seed, offset, 0.1, BLOCK=1024)
        torch.cuda.manual_seed(99)
        seed, offset = torch.cuda.default_generators[0].graphsafe_get_state().get_state().view(torch.int64)
        dropout[(1000,)](x, x.numel(), int(seed), int(offset), 0.1, BLOCK=1024)
        picks = torch.multinomial(torch.ones(8, device="cuda"), 4)
        seed, offset = torch.cuda.get_rng_state().view(torch.int64).tolist()
        """,
    )
    # (a launch of the same specialization as an earlier one is that record's: the second)
    got = [(k["seed"], k["offset"]) for k in launches(r, "dropout")]
    # 4 + 4 + 4 + 32 + 12 = 56; then the first launch's own 1000000 counters
    assert got == [(1234, 56), (99, 0)], got
    assert "after the first 1234 1000056" in r.output, r.output
    assert r.exit_status == 0, r.diagnostics
    (said,) = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert said.line == line_of(text, "picks = ") + 1 and "torch.multinomial" in said.message


def test_host_draws_after_an_init_past_the_budget_are_a_real_runs(tmp_path):
    """A module's init kx does not compute (its weights past known_values' budget) still
    draws from the CPU generator what a real run's draws, so a count the file draws on the
    host after it (dinov2's masked patches, corpus 14) is the real run's, read exactly. The
    oracle is PyTorch's own CPU generator, the same draws made here."""
    import torch

    r, text = run(
        tmp_path,
        """
        torch.manual_seed(0)
        head = torch.nn.Linear(9000, 8192).to("cuda")       # 295 MB of init: past the budget
        k = int(256 * (0.1 + 0.4 * torch.rand(()).item()))  # drawn on the host after it
        out = torch.empty(k, device="cuda")
        fill[(triton.cdiv(k, 128),)](out, k, 1.0, BLOCK=128)
        """,
    )
    torch.manual_seed(0)
    torch.nn.init.kaiming_uniform_(torch.empty(8192, 9000), a=5**0.5)  # nn.Linear's own init order
    torch.nn.init.uniform_(torch.empty(8192))
    expected = int(256 * (0.1 + 0.4 * torch.rand(()).item()))
    assert [launch["n"] for launch in launches(r)] == [expected]
    assert placeholders(r) == []
