"""Reads the host makes of what the file itself put on the GPU (issue 50, item 1): each
answered as a real run answers it, not with a placeholder, where PyTorch says what the
answer is. The files are written in the styles of the libraries that read them
(fixtures/kernels/host_reads); the H200's real run of each (scripts/record_real_runs.py,
in ground/) is its oracle."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs.real_runs import compare
from kx_testing import ROOT, assert_as_real_run

HOST_READS = ROOT / "fixtures" / "kernels" / "host_reads"


def _captured_in_whole(path):
    """kx's capture of `path`, every compiled graph captured (none ran eagerly, nothing
    raised), and the names of the kernels it compiled."""
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind in ("not-captured", "runtime")], [
        str(d) for d in r.diagnostics
    ]
    return r, {k.name for k in r.kernels if k.status == "compiled"}


def test_the_cuda_generators_state_is_its_seed_and_philox_offset():
    """A CUDA generator's state is 16 bytes, seed then offset (CUDAGeneratorImpl::get_state):
    FlagAttention-style code unpacks it into the dropout kernel's seed and offset and sets
    the advanced copy back (a CPU generator's 5056-byte state stopped the file: 'too many
    values to unpack')."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "generator_state.py"), target="cuda:90"), use_cache=False
    )
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    args = {a.name: a.value for a in k.launch.args}
    # the offset is where `torch.randn(4096, device="cuda")` left it on the capture GPU:
    # one group of 4 philox counters per thread (ATen's calc_execution_policy; was 0)
    assert args["seed"] == 17 and args["offset"] == 4 and k.launch.count == 2
    assert "seed 17 state bytes 16" in r.output
    # the H200's real run of the same file (scripts/record_real_runs.py): the same compiles
    real = json.loads((HOST_READS / "ground" / "generator_state.json").read_text())
    c = compare(real, list(r.kernels))
    assert c.complete and not c.extra


def test_a_compiled_forward_indexed_by_a_list_compiles_without_a_gpu():
    """The list index becomes a constant on the GPU: make_fx's real copy of it and
    Inductor's folding of it needed CUDA ('Found no NVIDIA driver'), so the frame ran
    eagerly and nothing was captured. Now the graph is compiled and its kernel captured."""
    path = ROOT / "fixtures" / "kernels" / "inductor_cpu" / "index_constant.py"
    r, names = _captured_in_whole(path)
    assert names and all(n.startswith("triton_") for n in names)
    assert "(2, 1, 64)" in r.output and r.exit_status == 0


def test_an_autocast_region_computes_in_the_dtypes_autocast_gives():
    """torch.autocast("cuda", float16) on capture tensors (meta, which autocast's CUDA
    dispatch key does not reach): PyTorch's own autocast, run on GPU fakes, decides each
    op's dtype. linear is on autocast's float16 list and softmax on its float32 list
    (PyTorch's AMP documentation), so the kernel fed by each reads that dtype."""
    path = HOST_READS / "autocast_region.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "autocast_region.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "torch.float16 torch.float32" in r.output
    pointers = sorted(k.specialization.signature["x_ptr"] for k in r.kernels if k.status == "compiled")
    assert pointers == ["*fp16", "*fp32"]


def test_autocast_casts_before_the_ops_own_checks_in_a_custom_backward():
    """attorch's layers: a custom autograd Function (torch.amp.custom_fwd/custom_bwd) whose
    backward multiplies an fp16 gradient by an fp32 weight under torch.autocast("cuda",
    float16). On a GPU autocast casts both operands before matmul checks their dtypes; kx
    checked first and stopped the file ('expected both operands to have the same dtype')."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "autocast_backward.py"), target="cuda:90"), use_cache=False
    )
    assert_as_real_run(r, HOST_READS / "ground" / "autocast_backward.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "torch.float16 torch.float32 True" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.specialization.signature["x_ptr"] == "*fp16"


def test_a_boolean_mask_of_gpu_random_numbers_indexes_as_on_the_gpu():
    """airbench's crop: masks made from torch.randint on the GPU select images,
    `out[mask] = images[mask, :, a:b, c:d]`. The index stopped the file once ('register_meta
    for torch.nonzero()'), then its count was a placeholder (exit 5). kx now draws the
    GPU generator's integers and uniform floats as PyTorch's CUDA kernels do (gpu_draws),
    so the masks, their counts and `masked_select` of `torch.rand(...) > 0.5` are a real
    run's: no placeholder, exit 0, and the file prints what the H100 printed."""
    path = HOST_READS / "mask_from_gpu_random.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    ground = HOST_READS / "ground" / "mask_from_gpu_random.json"
    assert_as_real_run(r, ground)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.kind == "placeholder"], [str(d) for d in r.diagnostics]
    assert json.loads(ground.read_text())["output_tail"].splitlines()[0] in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.launch.grid[0] == 64 * 3 * 32 * 32 // 1024


def test_a_fused_optimizer_step_writes_what_its_schema_says():
    """`SGD(fused=True)`'s step is `torch._fused_sgd_`, which has no meta kernel: the file
    stopped there (airbench). Its schema writes params, grads and momentum buffers and
    returns nothing, so the capture goes on with their data unknown: the weights a real
    run has after the step are the GPU's, so a later read of one is a placeholder, not
    the value they had before it (the weights were known: made on the host)."""
    path = HOST_READS / "fused_optimizer_step.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "fused_optimizer_step.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "(128, 64) (128, 64)" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.launch.grid[0] == 128 * 64 // 1024
    said = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert [d.line for d in said] == [_line_of(path, "float(model[0].weight[0, 0])")]


def test_where_of_one_argument_and_a_tensor_given_for_an_int_read_as_placeholders():
    """`torch.where(cond)` is `nonzero(cond, as_tuple=True)` (PyTorch's docs): on a mask
    of kernel output it stopped DeepSeek-V3's MoE routing ('register_meta for
    torch.nonzero()'); now one index tensor per dimension, every element presumed. A
    one-element tensor where ATen takes a number (`histc(bins=offs.max() + 1)`) is read
    by PyTorch's argument parser in C++, where a capture tensor raised 'item() cannot be
    called on meta tensors' (native-sparse-attention); now kx reads it as `int(t)` does."""
    path = HOST_READS / "where_and_histc_of_kernel_output.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "where_and_histc_of_kernel_output.json")
    assert r.exit_status == 5, [str(d) for d in r.diagnostics]
    # the top-k ids of data kx lacks are presumed distinct and spread over the 8 experts
    # (placeholders.presumed_indices), so each expert's `where` finds 64 x 2 / 8 tokens
    assert "0 torch.Size([16]) torch.Size([16])" in r.output
    said = {d.line for d in r.diagnostics if d.kind == "placeholder"}
    assert {_line_of(path, "idx, top = torch.where("), _line_of(path, "h = torch.histc(")} <= said
    # the three launches ran: the scores (4 blocks), the int64 offsets and the histogram
    grids = sorted(k.launch.grid[0] for k in r.kernels if k.status == "compiled")
    assert grids == [1, 1, 4]


def test_an_nccl_process_group_of_one_rank_runs_on_pytorchs_fake_backend():
    """nano-vllm makes an NCCL process group even for one GPU; NCCL needs a GPU, so the
    capture stopped at `init_process_group` ('ProcessGroupNCCL is only supported with
    GPUs') with nothing compiled. PyTorch's own fake backend stands in: with one rank its
    all-reduce is what NCCL's computes (the identity), so the file's reads stay exact."""
    path = HOST_READS / "nccl_process_group.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "nccl_process_group.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "world 1 sum 8386560.0" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.launch.grid[0] == 4


def test_the_files_default_device_makes_gpu_tensors_of_factories_given_no_device():
    """`torch.set_default_device("cuda")` (nano-vllm's model runner) makes a factory
    given no device make a GPU tensor. torch's DeviceContext adds the device below the
    capture's mode, so `torch.empty(n, d)` made a real CUDA tensor and stopped the file
    ('Found no NVIDIA driver'); the default device is now read as a named device, and
    the CPU again once the file sets it back, as on a GPU."""
    path = HOST_READS / "default_device_cuda.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "default_device_cuda.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "cuda:0 torch.bfloat16 cuda:0 cpu torch.float32" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.specialization.signature["x_ptr"] == "*bf16"


def test_memory_stats_has_a_real_runs_keys_and_says_its_figures_are_guessed():
    """nano-vllm sizes its KV cache by `torch.cuda.memory_stats()["allocated_bytes.all.peak"]`;
    the capture device answered an empty dict and the file stopped (KeyError). Every key
    of the caching allocator's dict is there now, each figure a placeholder at its line
    (a real run's allocator holds what the capture never allocates), and the cache's
    launch after it is marked (exit 5)."""
    path = HOST_READS / "kv_cache_from_memory_stats.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "kv_cache_from_memory_stats.json")
    assert r.exit_status == 5, [str(d) for d in r.diagnostics]
    assert "blocks 64" in r.output
    said = {d.line for d in r.diagnostics if d.kind == "placeholder"}
    assert _line_of(path, 'memory_stats()["allocated_bytes.all.peak"]') in said
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.launch.grid[0] == 64 * 16 * 8 * 64 // 1024


def test_a_parameter_that_moves_its_own_data_to_the_gpu():
    """`self.data = <GPU tensor>` on a CPU parameter (set_data refused a capture tensor's
    type: bitsandbytes' Params4bit stopped there) keeps the object and its attributes and
    holds the GPU data, as on a GPU; the kernel reading it is compiled for it."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "param_data_to_gpu.py"), target="cuda:90"), use_cache=False
    )
    assert_as_real_run(r, HOST_READS / "ground" / "param_data_to_gpu.json")
    # the Linear is made on the host (no device): its weight's `.cpu()` copy holds the
    # values a real run's CPU generator gave it, no placeholder (it was one, and exit 5,
    # before issue 50 item 1's real host values)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert r.launched_after_placeholder is None and not r.diagnostics
    assert "QuantParam nf4 cuda:0 torch.uint8 (16384, 1)" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.specialization.signature["q_ptr"] == "*u8"


def test_launches_after_a_placeholder_are_said_in_the_exit_status():
    """Issue 50, item 5: the host reads a count a kernel wrote (kx has no data: a
    placeholder) and sizes the next launch by it. A real run's grid follows the real
    count, so the capture is not known to be a real run's: exit status 5, the kernel
    marked, the CLI saying so. The same read after the last launch, or a value only
    printed, steers nothing: exit 0."""
    path = HOST_READS / "steered_by_a_read.py"
    text = path.read_text()
    steered = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(steered, HOST_READS / "ground" / "steered_by_a_read.json")
    assert steered.exit_status == 5, [str(d) for d in steered.diagnostics]
    first = steered.launched_after_placeholder
    assert first is not None and first.what == ".item()" and first.line == _line(text, "n = int(")
    (fill,) = [k for k in steered.kernels if k.name == "fill"]
    assert fill.after_placeholder == first
    (count,) = [k for k in steered.kernels if k.name == "count_positive"]
    assert count.after_placeholder is None  # launched before any read: a real run's
    at_end = compile_file(
        CompileRequest(
            str(path), target="cuda:90", text=text.replace("CHECK_AT_END = False", "CHECK_AT_END = True")
        ),
        use_cache=False,
    )
    assert at_end.exit_status == 0, [str(d) for d in at_end.diagnostics]
    assert any(d.kind == "placeholder" for d in at_end.diagnostics)  # still said
    assert at_end.launched_after_placeholder is None
    # the command line exits with it and says why
    from kx_testing import run_kx

    p = run_kx("compile", str(path), "--target", "cuda:90", no_cache=True)
    assert p.returncode == 5, p.stderr
    assert "exit status 5" in p.stdout + p.stderr


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


def test_a_launch_picked_by_a_timing_kx_could_not_take_is_said():
    """A timing (do_bench) kx answers with a placeholder steers only once the file decides
    on it: the block picked by `min` of the timings launches the fp16 kernel, so that
    launch follows a guess (exit 5, marked from the decision's line); printed, and
    computed on, it steers nothing (exit 0)."""
    path = HOST_READS / "picks_by_timing.py"
    text = path.read_text()
    picked = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(picked, HOST_READS / "ground" / "picks_by_timing.json")
    assert picked.exit_status == 5, [str(d) for d in picked.diagnostics]
    first = picked.launched_after_placeholder
    assert first.what == "triton.testing.do_bench" and first.line == _line(text, "times = {block")
    fp16 = [k for k in picked.kernels if k.specialization.signature["x_ptr"] == "*fp16"]
    assert fp16 and all(k.after_placeholder == first for k in fp16)
    assert all(k.after_placeholder is None for k in picked.kernels if k not in fp16)
    printed = compile_file(
        CompileRequest(str(path), target="cuda:90", text=text.replace("PICK = True", "PICK = False")),
        use_cache=False,
    )
    assert printed.exit_status == 0, [str(d) for d in printed.diagnostics]
    assert any(d.kind == "placeholder" and "do_bench" in d.message for d in printed.diagnostics)


def test_a_float_read_steers_only_where_the_file_decides_on_it():
    """A loss a kernel wrote, read with .item(): printed and passed on to the next
    kernel as a float, it changes nothing a real run compiles or launches (exit 0, said
    as a placeholder; was 5); compared, or made into a size through a tensor, it does
    (exit 5, from that line)."""
    path = HOST_READS / "loss_read.py"
    text = path.read_text()

    def run(mode: str):
        return compile_file(
            CompileRequest(
                str(path), target="cuda:90", text=text.replace('MODE = "print"', f'MODE = "{mode}"')
            ),
            use_cache=False,
        )

    printed = run("print")
    assert_as_real_run(printed, HOST_READS / "ground" / "loss_read.json")
    assert printed.exit_status == 0, [str(d) for d in printed.diagnostics]
    assert any(
        d.kind == "placeholder" and d.line == _line(text, "value = loss.item()") for d in printed.diagnostics
    )
    branch = run("branch")
    # (the placeholder named is the read; the kernels marked are those after the decision)
    assert branch.exit_status == 5 and branch.launched_after_placeholder.line == _line(
        text, "value = loss.item()"
    )
    laundered = run("launder")
    assert laundered.exit_status == 5, [str(d) for d in laundered.diagnostics]


def _line_of(path, snippet: str) -> int:
    """The 1-based number of the first line of `path` holding `snippet`."""
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if snippet in t)


def test_an_integer_difference_is_a_length_not_a_check():
    """`(cu[1:] - cu[:-1]).max().item()` of offsets a kernel counted is the longest run
    (native-sparse-attention's max_len); kx presumed every difference of two tensors 0
    (a float check `(out - ref).abs().max()` passes on a correct kernel), so the next
    launch's block was next_power_of_2(0) = 0 and `triton.cdiv(max_len, 0)` stopped the
    file. An integer difference is as unknown as the counts: the integer placeholder, said
    at its line; the file's float check against a reference still reads 0."""
    path = HOST_READS / "lengths_from_kernel_offsets.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "lengths_from_kernel_offsets.json")
    assert r.exit_status == 5, [str(d) for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    reads = {d.line: d.message for d in r.diagnostics if d.kind == "placeholder"}
    assert "answered 3 " in reads[_line_of(path, "max_len = (cu[1:]")]
    assert "answered 0.0 " in reads[_line_of(path, "err = (dst - (src + 1))")]
    (gather,) = [k for k in r.kernels if k.name == "gather_kernel"]
    assert gather.status == "compiled" and gather.launch.grid[:2] == (16, 1)
    assert "checked True" in r.output


def test_the_allocators_figures_are_placeholders_said_at_their_line():
    """`torch.cuda.memory_allocated()` and its kin answered 0 and said nothing: a batch or
    a KV cache sized by what is left (`(budget - memory_allocated()) // row_bytes`)
    launched another shape than the GPU, with exit 0. A capture allocates nothing, so each
    figure is now a placeholder said at its line, as memory_stats()'s are, and the
    kernels after it are marked (exit 5)."""
    path = HOST_READS / "memory_figures.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "memory_figures.json")
    assert r.exit_status == 5, [str(d) for d in r.diagnostics]
    said = {(d.line, d.message.split(" (")[0]) for d in r.diagnostics if d.kind == "placeholder"}
    printed, sized = _line_of(path, "mib, gib = "), _line_of(path, "rows = min(")
    assert {
        (printed, "torch.cuda.memory_allocated()"),
        (printed, "torch.cuda.max_memory_allocated()"),
        (sized, "torch.cuda.memory_allocated()"),
    } <= said, said
    (k,) = [k for k in r.kernels if k.name == "row_sum_kernel"]
    assert k.status == "compiled" and k.launch.grid[0] == 1000


def test_a_dataloaders_workers_and_pin_memory_thread_feed_the_kernels():
    """A DataLoader with worker processes and pin_memory=True: the workers collated into
    a shared storage on the sample's device and the pin-memory thread pinned each batch,
    both outside the capture's rules (they are per thread, and a fork's shared memory is
    real): "Caught RuntimeError in pin memory thread for device 0" stopped
    LLMs-from-scratch's training script before its first step. Now every batch reaches
    the kernel, as on the GPU: 4 steps of 4 windows of 32 tokens."""
    path = HOST_READS / "dataloader_workers_pinned.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "dataloader_workers_pinned.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "crash")]
    (k,) = r.kernels
    assert k.status == "compiled" and k.launch.grid[0] == 4 * 32 and k.launch.count == 4


def test_a_sparse_buffer_moved_to_the_gpu_keeps_its_entries():
    """whisper keeps its alignment heads as a sparse buffer made on the CPU and moved by
    `model.to("cuda")`: the meta copy of a sparse tensor has no entries (`.indices()`
    empty) and its known values had no storage to live in ("Cannot access storage of
    SparseTensorImpl" stopped the file). Now its indices and values go to the GPU with
    their data, and picking rows of random data by those exact indices has an exact size
    (the indexed data never sizes `x[i]`): 12 heads of 32 rows, exit 0, nothing guessed."""
    path = HOST_READS / "sparse_buffer_to_gpu.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "sparse_buffer_to_gpu.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.kind in ("placeholder", "runtime")]
    (k,) = r.kernels
    assert k.status == "compiled" and k.launch.grid[0] == 12 * 32


def test_positions_made_in_a_compiled_forward_carry_their_values():
    """A batched KV-cache decoder (LLMs-from-scratch's kv_cache_batched Qwen3) computes
    `pos_end = start_pos + T` inside its compiled forward and reads `pos_end.max().item()`
    and `start_pos[i].item()` after the graph break: Inductor's kernels that compute them
    are skipped, so both read the placeholder 3 and the per-sample mask's shapes clashed
    ("expanded size (5) must match the existing size (3)"). The compiled graph now runs on
    the CPU where its inputs' data is known: the longest cache after three calls is 7, the
    kernel's grid, exit 0, nothing guessed."""
    path = HOST_READS / "positions_through_compiled_forward.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "positions_through_compiled_forward.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert not [d for d in r.diagnostics if d.kind in ("placeholder", "runtime", "not-captured")]
    (fill,) = [k for k in r.kernels if k.name == "fill_rows_kernel"]
    assert fill.status == "compiled" and fill.launch.grid[0] == 7
    assert "longest 7 positions [7, 7]" in r.output


def test_a_functions_backward_buffer_traced_at_compile_is_not_data():
    """A compiled training step through an autograd.Function whose backward makes a lock
    buffer (torch.zeros(..., device=dy.device)) and launches a Triton kernel on it: AOT
    autograd traces that backward at the forward's compile, under its fake mode, so the
    call is a trace, not a run, and kx's capture rules pass it through. Before, kx read
    the fake result's storage as data; on torch 2.11 (the GPU machine's) that raised
    'Attempted to access the data pointer on an invalid python storage' inside Inductor
    and the whole model ran eagerly (stickbreaking-attention's training, corpus 5)."""
    path = HOST_READS / "function_backward_buffer.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "function_backward_buffer.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert {"_scale_fwd", "_scale_bwd"} <= names
    # Inductor's kernels of the forward graph and of the backward graph
    assert any("threshold_backward" in n for n in names) and any("mean_pow" in n for n in names)
    assert "grad shape (256, 256)" in r.output


def test_a_scripted_helper_calling_a_functional_op_compiles_as_torchscript_does():
    """torch.jit.script of a dequantize helper that calls F.embedding_bag: TorchScript
    scripts F.embedding_bag itself on the way (try_compile_fn) and calls what it got back
    inside the script. kx's wrapper, which makes a scripted function run as Python under
    capture, handed TorchScript its wrapper there, and TorchScript matched the call against
    the aten op ("Argument offsets not provided"): the file stopped at its import (AQLM's
    inference kernels, corpus 6). The helper's result feeds a Triton GEMV."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "scripted_dequantize.py"), target="cuda:90"), use_cache=False
    )
    assert_as_real_run(r, HOST_READS / "ground" / "scripted_dequantize.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    args = {a.name: a.value for a in k.launch.args}
    assert k.name == "gemv" and args["K"] == 512  # 64 groups of 8: the rebuilt weight's width
    assert "weight (256, 512) y (256,)" in r.output


def test_a_compiled_helper_first_called_in_a_backward_compiles_there():
    """A custom Function's backward first calls a torch.compile'd helper: dynamo's set-up
    (the default device back to the CPU, as a real run has it) ran inside the capture
    mode's handler of loss.backward(), where PyTorch's DeviceContext is not on the mode
    stack, and set_default_device(None) raised "Expected a DeviceContext at the bottom of
    the mode stack" (cut_cross_entropy's sort_logit_avg, corpus 6). Now the helper's
    Inductor kernel and the backward's Triton kernel are both captured."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "compiled_helper_in_backward.py"), target="cuda:90"),
        use_cache=False,
    )
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_helper_in_backward.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert "scaled_grad" in names and any(n.startswith("triton_") for n in names)
    assert "grad (4, 4096)" in r.output


def test_a_config_pre_hook_on_known_data_runs_in_its_forked_child():
    """A split-K GEMM autotuned over configs whose pre_hook zeroes the output: kx compiles
    each config in a forked child, and the hook runs there on the output's known data. The
    file's own CPU work (inputs made on the host) had started PyTorch's OpenMP pool in the
    parent, which fork does not carry: the child's zero_ waited on it forever and the file
    ran into its timeout (triton-lang/kernels' matmul, corpus 6: 20 of 113 compiles on the
    H100). A child now uses one intra-op thread, as PyTorch's DataLoader workers do."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "split_k_zeroed_output.py"), target="cuda:90", timeout_s=300),
        use_cache=False,
    )
    assert_as_real_run(r, HOST_READS / "ground" / "split_k_zeroed_output.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    compiled = [k for k in r.kernels if k.status == "compiled"]
    assert sorted(k.config.kwargs["SPLIT_K"] for k in compiled) == [2, 4]
    assert "c (16, 4096) torch.float32" in r.output


def test_an_environment_flag_read_inside_a_compiled_forward_traces_as_on_a_real_run():
    """A block's forward asks `os.environ.get(FLAG)` inside torch.compile (k-diffusion's
    flags module, corpus 6), and the blocks run in a loop. kx records the environment a
    file reads by wrapping os.environ's lookups; dynamo traced that wrapper inline, and its
    frame walk (`sys._getframe`) was a graph break a real run does not have; in a loop,
    dynamo then skips the whole frame: other graphs than the GPU's, 16 of
    kdiff_hdit_sample's 150 compiles missing on the H100. The file compiles with
    fullgraph=True, so dynamo itself is the oracle: any graph break raises."""
    path = HOST_READS / "env_flag_in_compiled_forward.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "env_flag_in_compiled_forward.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    assert "graph breaks 0" in r.output
    gelu = [k for k in r.kernels if k.status == "compiled" and "gelu" in k.name]
    # the flag's path: tanh's GELU (the other is erf's)
    assert gelu and all("tanh" in k.stages["ttir"] and "erf" not in k.stages["ttir"] for k in gelu)


def test_a_lookup_traced_by_dynamo_is_still_recorded():
    """The name a compiled function looks up is recorded for the result cache while dynamo
    traces it (no frame walk there): a changed value is a new compile."""
    script = (
        "import os, torch\n"
        "from kx_core.compile.capturing.device import reads\n"
        "reads.install()\n"
        "@torch.compile(backend='eager', fullgraph=True)\n"
        "def f(x):\n"
        "    return x + 1 if os.environ.get('KX_TRACED_FLAG', '1') == '1' else x\n"
        "f(torch.ones(2))\n"
        "got = reads.stop()\n"
        "print('KX_TRACED_FLAG' in got.env)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert out.stdout.strip().splitlines()[-1:] == ["True"], out.stderr[-2000:]


def test_the_gpus_properties_read_in_compiled_code_are_a_constant_as_on_a_real_run():
    """`torch.cuda.get_device_properties(x.device).multi_processor_count` inside a
    fullgraph torch.compile: dynamo folds the call, and keeps the result as a constant
    because its real type is one of dynamo's constant types. kx's stand-in was a
    SimpleNamespace, and dynamo stopped at "Unexpected type in sourceless builder" where a
    real run traces on. The H200's 132 SMs split the 1 M elements into 264 chunks."""
    path = HOST_READS / "sm_count_in_compiled_code.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90", gpu="h200"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "sm_count_in_compiled_code.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    assert "chunks 264" in r.output
    assert any(k.status == "compiled" and "sum" in k.name for k in r.kernels)


def test_a_zero_dim_index_tensor_is_read_as_the_integer_it_holds():
    """`k_cache[tables[0, 1].long()]`: PyTorch's indexing takes a 0-dim integer tensor as
    the integer it holds, read on the host in C++ (ColossalAI's paged attention tests,
    corpus 7). Where a kernel had written the table, kx no longer knows its data and
    ATen's own read stopped the file ("Tensor.item() cannot be called on meta tensors").
    Now read as kx reads any host read: the known entry exactly, the entry after the
    kernel as a placeholder said at its line; the block is launched with its shape."""
    path = HOST_READS / "paged_block_by_table_entry.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "paged_block_by_table_entry.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    said = [d for d in r.diagnostics if d.kind == "placeholder"]
    line = _line_of(path, "block = k_cache[tables[0, 1].long()]")
    assert [d.line for d in said] == [line]  # once: the read after the kernel
    assert "entry 5" in r.output
    assert "before block (4, 16, 64)" in r.output and "after block (4, 16, 64)" in r.output
    launches = [k for k in r.kernels if k.name == "copy_block" and k.status == "compiled"]
    assert launches and launches[0].launch.args[2].value == 4096


def test_the_backward_of_a_write_through_a_mask_of_gpu_data_runs():
    """`y[keep] = out[expert[keep], slot[keep]]` with `keep` from routing a kernel computed,
    then a backward (ColossalAI's MoE training, corpus 7): the write's backward, in
    PyTorch's C++ engine, turns the mask into nonzero() indices, which have no meta
    kernel, and the file stopped at loss.backward() ("register_meta function for
    torch.nonzero() raises unimplemented"). Inside a backward the mask is presumed
    wholly selected, as the forward's read of it presumed and said at its line."""
    path = HOST_READS / "masked_write_of_gpu_routing.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "masked_write_of_gpu_routing.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    line = _line_of(path, "y[keep] = out[expert[keep], slot[keep]]")
    assert any(d.kind == "placeholder" and d.line == line for d in r.diagnostics)
    assert any(k.name == "scale_rows" and k.status == "compiled" for k in r.kernels)
    assert "combined (512, 256) grad (8, 48, 256)" in r.output  # the gradient's launch ran


def test_numpy_scalars_in_compiled_code_trace_as_on_a_real_run():
    """`c / np.sqrt(n) * (1 - t)` of numpy scalars times a tensor inside torch.compile
    (EDM2's mp_cat, corpus 7): dynamo sends a numpy-backed value's operators through the
    torch function modes on the stack, and kx's capture mode made one a tensor method of
    a torch._numpy array ("'ndarray' object has no attribute 'div'"); the function ran
    eagerly, its kernels not shown. A real run has no mode there: with fullgraph=True,
    dynamo is the oracle (any graph break raises)."""
    path = HOST_READS / "numpy_scalars_in_compiled_code.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "numpy_scalars_in_compiled_code.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    assert "cat (4, 96, 8, 8) torch.float32 graph breaks 0" in r.output
    assert any(k.status == "compiled" and "cat" in k.name for k in r.kernels)


def test_saved_statistics_of_one_value_per_row_reach_atens_layer_norm_backward():
    """A LayerNorm Function saves mean and rstd as (M,) and calls
    aten.native_layer_norm_backward with them (stable-fast's, corpus 7). ATen's CUDA and
    CPU kernels read them by pointer (the same file with the CPU's tensors runs); the meta
    kernel broadcast (M,) against the input and the file stopped at its backward
    ("Attempting to broadcast a dimension of length 4096 at -3"). They are given in the
    shape the op's forward returns them in."""
    path = HOST_READS / "layer_norm_stats_by_row.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "layer_norm_stats_by_row.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    assert "grad (8, 512, 1000)" in r.output
    assert any(k.name == "layer_norm_fwd" and k.status == "compiled" for k in r.kernels)


def test_a_python_op_for_every_backend_runs_its_body_on_the_capture_device():
    """An op whose Python implementation is registered for CompositeImplicitAutograd (every
    backend: a GPU tensor runs it as a CUDA one does) reads the last offset on the host and
    selects rows by a mask (generative-recommenders' fbgemm stand-ins, corpus 8). The
    dispatcher calls that body inside kx's handler of the op, where the capture's mode was
    off: `int(offsets[-1])` reached ATen on a meta tensor and stopped the file ("Tensor.item()
    cannot be called on meta tensors"). Now the body runs with the mode on, as a CUDA
    implementation does: the known offsets are read exactly (13 rows, the real answer) and
    the mask over the matmul's unknown values selects the rows the offsets say. And
    that selection keeps its backward: a mask index answered from the CPU (the values are
    kx's sample of random data) had no autograd history ("element 0 of tensors does not
    require grad"); it is indexed again by the mask's nonzero() indices, as PyTorch does,
    also where the values selected are unknown (a kernel's output)."""
    path = HOST_READS / "composite_op_reads_offsets.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "composite_op_reads_offsets.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    # the body ran, not a CPU stand-in for the whole op (which presumed its size)
    assert not [d for d in r.diagnostics if "dense_to_jagged" in d.message], [str(d) for d in r.diagnostics]
    # values a kernel wrote, which kx does not have, selected by the known mask: the
    # mask's own count (every element was presumed: 24 rows)
    assert "rows 15 rows of the kernel's output 15" in r.output
    (k,) = [k for k in r.kernels if k.name == "row_sum"]
    assert k.status == "compiled" and k.launch.grid[0] == 15


def test_a_tensor_subclass_without_storage_of_its_own_runs_as_on_a_gpu():
    """An int8 weight made with `_make_wrapper_subclass` and wrapped in `nn.Parameter`
    (gau-nernst/quantized-training's subclasses, corpus 8): kx's data tracking asked the
    subclass's storage for its data pointer and stopped the file ("Attempted to access
    the data pointer on an invalid python storage"). A tensor with PyTorch's Python
    dispatch key holds its data in its inner tensors, which kx follows: the file runs to
    its end and the kernel after the layer is launched with the layer's output."""
    path = HOST_READS / "int8_weight_subclass.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "int8_weight_subclass.json")
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-captured")], [
        str(d) for d in r.diagnostics
    ]
    assert "weight Int8Weight out (32, 128)" in r.output
    (k,) = [k for k in r.kernels if k.name == "relu"]
    assert k.status == "compiled" and k.launch.grid[0] == 4


def test_a_host_tensor_traced_by_torch_compile_is_said_not_taken_for_a_gpu_one(monkeypatch):
    """PyTorch keeps a tensor where it was made: dion's GPT makes its rotary `inv_freq` with
    no device after `to_empty(device="cuda")`, so a real run traces it as a CPU tensor and
    Inductor computes the table on the host (the H100's run of that file has a CPU kernel
    where kx had a fused Triton one: 22 of 238 compiles differed, exit 0). kx's capture
    tensors all stand for GPU ones, so it cannot trace that graph as a real run does: it
    says so at the compiled call and marks what follows (exit 5), and stays exit 0 where
    the same table is a buffer moved with the module."""
    path = str(HOST_READS / "host_rotary_table.py")
    r = compile_file(CompileRequest(path, target="cuda:90"), use_cache=False)
    said = [d for d in r.diagnostics if d.kind == "placeholder" and "on the CPU" in d.message]
    assert said and said[0].line == 48 and "float32 8" in said[0].message, [str(d) for d in r.diagnostics]
    compiled = [k for k in r.kernels if k.status == "compiled"]
    assert compiled and all(k.after_placeholder for k in compiled)
    assert r.exit_status == 5
    assert_as_real_run(r, HOST_READS / "ground" / "host_rotary_table.json")  # the H100's run
    monkeypatch.setenv("KX_ROTARY_BUFFER", "1")
    moved = compile_file(CompileRequest(path, target="cuda:90"), use_cache=False)
    assert moved.exit_status == 0, [str(d) for d in moved.diagnostics]
    assert_as_real_run(moved, HOST_READS / "ground" / "host_rotary_table_buffer.json")
    assert [k for k in moved.kernels if k.status == "compiled"]


def test_a_checkpointed_random_op_in_a_compiled_training_graph_runs_on_the_capture_generator():
    """Gradient checkpointing under torch.compile (timm's ViT, qt_int8_vit_train of corpus 8):
    attention with dropout draws from the CUDA generator, so AOT autograd wraps it in
    `graphsafe_run_with_rng_state` with the generator's state. Inductor's lowering asked
    the machine's accelerator for that generator ("Expected idx >= 0 && idx < num_gpus":
    the graph ran eagerly, then checkpoint's recomputation failed), and the operator's
    device check refused capture tensors ("GraphSafe RNG operations only supported for
    CUDA, got None" on torch 2.11). Now both see the capture GPU and its generator: the
    forward and the backward graphs compile and the file runs to its end."""
    path = HOST_READS / "checkpointed_attention.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "checkpointed_attention.json")
    stops = [str(d) for d in r.diagnostics if d.kind in ("not-captured", "runtime", "crash")]
    assert not stops, stops
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert any("backward" in n for n in names) and any("nll_loss_forward" in n for n in names), names
    assert "step 1 loss" in r.output


def test_unique_of_data_a_kernel_wrote_presumes_every_element_distinct():
    """torch.unique of a kernel's output (no meta kernel: 'aten::_unique2 ... no fake impl'
    stopped corpus 9's FlexPrefill file) presumes every element, or every slice along
    `dim`, distinct, as nonzero() presumes every element nonzero: said at its line, and the
    shapes are PyTorch's own for data whose elements are distinct."""
    import torch

    path = HOST_READS / "unique_of_kernel_output.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "unique_of_kernel_output.json")
    said = [d for d in r.diagnostics if d.kind == "placeholder" and "torch.unique" in d.message]
    assert [d.line for d in said] == [31, 32, 33], [str(d) for d in r.diagnostics]
    assert r.exit_status == 5 and not [d for d in r.diagnostics if d.kind == "runtime"]
    # the oracle: PyTorch's unique of 4 x 16 distinct values
    picked = torch.randperm(64).reshape(4, 16)
    blocks = torch.unique(torch.cat((picked[0], picked[1])))
    values, inverse, counts = torch.unique(picked, return_inverse=True, return_counts=True)
    rows = picked.unique(dim=0)
    shapes = tuple(tuple(t.shape) for t in (blocks, values, inverse, counts, rows))
    assert f"shapes {' '.join(str(s) for s in shapes)}" in r.output
    (gather,) = [k for k in r.kernels if k.name == "gather_blocks" and k.status == "compiled"]
    assert gather.launch.grid[0] == blocks.numel()


def test_a_compiled_graph_returning_an_expanded_parameter_keeps_its_known_values():
    """A compiled graph whose output is an expanded view of a parameter (NaViT's einops
    `repeat` of its pooling queries: stride 0 along the repeated dimensions): kx carries the
    parameter's known values through the graph, and copying them into a view whose elements
    share memory raised ("more than one element of the written-to tensor refers to a single
    memory location": corpus 9's navit_compile_train stopped there). The values read back
    are PyTorch's own: the host's randn under the same seed."""
    import torch

    path = HOST_READS / "compiled_expand_of_a_parameter.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_expand_of_a_parameter.json")
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert [k for k in r.kernels if k.status == "compiled"]
    torch.manual_seed(0)
    expected = round(torch.randn(64)[3].item(), 4)
    assert f"first {expected}" in r.output and f"host {expected}" in r.output, r.output


def test_a_compiled_graphs_backward_is_lowered_at_its_first_backward_as_on_a_gpu():
    """A real run lowers a torch.compile graph's backward at its first backward, so a file
    that never calls backward compiles no backward kernel (the H100's run of
    compiled_expand_of_a_parameter.py: the forward's 2 compiles). So does kx (it lowered
    every backward with its forward, held its kernels back until the graph ran, and so
    lowered it with the donated buffers of a plain backward where the first backward kept
    the graph: torchdiffeq's adjoint raised "compiled with non-empty donated buffers", a
    real run goes on). Once the file calls backward its kernels are shown, launched."""
    path = HOST_READS / "compiled_expand_of_a_parameter.py"
    text = path.read_text()
    forward = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [k for k in forward.kernels if "backward" in k.name], [k.name for k in forward.kernels]
    assert not [d for d in forward.diagnostics if "backward" in d.message]
    assert forward.exit_status == 0
    assert_as_real_run(forward, HOST_READS / "ground" / "compiled_expand_of_a_parameter.json")
    trained = compile_file(
        CompileRequest(str(path), target="cuda:90", text=text + "out.sum().backward()\n"), use_cache=False
    )
    backward = [k for k in trained.kernels if "backward" in k.name and k.status == "compiled"]
    assert backward and all(k.launch.count for k in backward), [k.name for k in trained.kernels]
    assert not [d for d in trained.diagnostics if "backward" in d.message]
    assert trained.exit_status == 0, [str(d) for d in trained.diagnostics]


def test_a_backward_whose_first_call_keeps_the_graph_has_no_donated_buffers():
    """`torch.autograd.grad(out, inputs, retain_graph=True)` as the first backward of a
    compiled graph (torchdiffeq's adjoint, corpus 17): AOTAutograd lowers that backward then,
    without donated buffers, and later calls that keep the graph run; kx lowered it with the
    forward, with donated buffers, and the call raised. The oracle is PyTorch's own rule,
    run here on CPU tensors: the same calls raise nothing."""
    import torch

    def f(x, w):
        return torch.tanh(x @ w).sum()

    w = torch.randn(16, 16, requires_grad=True)
    compiled = torch.compile(f, backend="aot_eager")
    for _ in range(2):
        torch.autograd.grad(compiled(torch.randn(8, 16), w), (w,), retain_graph=True)
    torch._dynamo.reset()

    probe = HOST_READS / "compiled_backward_retained.py"
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "grad (16, 16)" in r.output and r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert [k for k in r.kernels if "backward" in k.name and k.status == "compiled"]
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_backward_retained.json")  # the H100's run


def test_a_write_through_a_known_mask_has_the_backward_a_real_run_has():
    """`state[unfinished] = new` with a mask made from the file's own lengths, then
    backward: autograd's C++ backward turns the mask into its nonzero() indices outside
    kx's torch function mode, and PyTorch's meta kernel presumed every element set, so the
    gradient's shape disagreed with the forward's exact count ("IndexPutBackward0 returned
    an invalid gradient", corpus 10's cute_gru_varlen). The oracle: the same file run by
    PyTorch on the CPU."""
    path = HOST_READS / "masked_state_update_backward.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert_as_real_run(r, HOST_READS / "ground" / "masked_state_update_backward.json")  # the H100's run
    text = path.read_text()
    code = text[text.index("torch.manual_seed(0)") :].replace("scale_kernel[", "# scale_kernel[")
    code = 'import torch\nDEV = "cpu"\n' + code
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert k.launch.grid[0] == 2


def test_a_python_tensor_method_in_compiled_code_keeps_one_graph():
    """`Tensor.unflatten` is written in Python (torch/_tensor.py) and calls TensorBase's C
    method through super(); dynamo traces the capture's torch function mode with each call,
    so it inlined the method where a real run calls it as a tensor method, and torch 2.11's
    dynamo broke the graph at the super() call (corpus 10's trifast pair stack). The oracle:
    PyTorch's own dynamo on the same module, with no capture, traces one graph and no break;
    kx's capture then has the kernel that fuses one block's residual add into the next
    block's LayerNorm, which exists only where both blocks are one graph. (Under torch 2.14,
    whose dynamo counts TensorBase's own methods, the break did not occur: run it under the
    GPU machine's torch 2.11 too.)"""
    import torch

    path = HOST_READS / "compiled_unflatten_heads.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert any("add_native_layer_norm" in k.name for k in r.kernels), sorted({k.name for k in r.kernels})
    # the oracle: dynamo without kx, on the CPU (tracing does not depend on the device)
    text = path.read_text().split("\ntorch.manual_seed(0)", 1)[0]
    namespace: dict = {}
    exec(compile(text, str(path), "exec"), namespace)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(namespace["Stack"]())(torch.randn(2, 16, 16, 32))
    assert explained.graph_count == 1 and explained.graph_break_count == 0
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_unflatten_heads.json")  # the H100's run


def test_bincount_counts_presumed_sum_to_the_tokens_a_router_splits():
    """`torch.bincount(ids, minlength=E).tolist()` of ids a capture does not have: kx presumed
    E bins of 3 each, and `split(counts)` of the 8,192 routed tokens raised (tritonbench's
    grouped GEMM of corpus 11). The presumed counts now keep every bincount's own invariant
    (without weights they sum to the input's length), spread evenly, said as guessed; the
    file runs on to its per-expert launches. The oracle: PyTorch's bincount on the CPU of
    ids in range sums to their number, whatever they are."""
    import torch

    path = HOST_READS / "moe_split_by_bincount.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    assert r.exit_status == 5  # the launches follow guessed counts: said
    launches = [k for k in r.kernels if k.name == "scale_rows_kernel"]
    assert launches and all(k.after_placeholder for k in launches)
    (said,) = [d for d in r.diagnostics if ".tolist() of sampled or guessed data" in d.message]
    presumed = json.loads(said.message.split("kx answered ", 1)[1].split(" and went on", 1)[0])
    ids = torch.randint(0, 8, (4096 * 2,))
    assert sum(presumed) == torch.bincount(ids, minlength=8).sum().item() == 8192 and len(presumed) == 8
    # the H100's run: its counts are not these (kx presumed them, said), its compiles are
    assert_as_real_run(r, HOST_READS / "ground" / "moe_split_by_bincount.json")


def test_a_jagged_nested_tensors_own_reads_of_its_offsets_are_known(tmp_path):
    """`x.unbind()` of a jagged NestedTensor splits its values by `offsets.diff().tolist()` in
    the nested tensor's own __torch_dispatch__, which ran below the capture's mode, on plain
    meta tensors: "Cannot copy out of meta tensor; no data!" (corpus 11's tritonbench jagged
    softmax). The oracle: the same file run by PyTorch on the CPU prints the same parts and
    the same longest sequence, and the kernel is compiled for the block that length sizes."""
    path = HOST_READS / "jagged_rows_by_offsets.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    text = path.read_text().replace('DEVICE = "cuda"', 'DEVICE = "cpu"').split("\nout = torch.empty", 1)[0]
    (tmp_path / "on_cpu.py").write_text(text)  # (a @triton.jit needs its source in a file)
    cpu = subprocess.run(
        [sys.executable, str(tmp_path / "on_cpu.py")], capture_output=True, text=True, timeout=120, check=True
    )
    (line,) = [t for t in cpu.stdout.splitlines() if t.startswith("parts")]
    assert line in r.output
    longest = int(line.rsplit(" ", 1)[1])
    (k,) = [k for k in r.kernels if k.name == "row_sums_kernel"]
    assert k.status == "compiled" and k.launch.constexprs["MAX_SEQLEN"] == 1 << (longest - 1).bit_length()
    ground = HOST_READS / "ground" / "jagged_rows_by_offsets.json"  # the H100's run: the same parts
    assert line in json.loads(ground.read_text())["output_tail"]
    assert_as_real_run(r, ground)


def test_an_op_given_a_gpu_and_a_host_tensor_raises_as_its_cuda_kernel_does():
    """`torch.isin(token, stop_tokens)` with the stop tokens made on the host raised on the
    H100 before any kernel (corpus 11's nano-llama31 decode) and ran on under kx, exit 0: both
    were meta tensors. PyTorch's two rules, from its own sources (the dispatcher's CUDA
    kernels, native_functions.yaml's device_check, torchgen's wrapper names): every argument
    checked (isin, index_select), TensorIterator's (a 0-dim CPU tensor joins). The oracle: the
    H100's run of the same file printed the same lines and stopped at the same line."""
    path = HOST_READS / "stop_tokens_on_the_host.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    (stop,) = [d for d in r.diagnostics if d.kind == "runtime"]
    assert stop.line == 41 and "test_elements is on cpu" in stop.message and r.exit_status != 0
    real = json.loads((HOST_READS / "ground" / "stop_tokens_on_the_host.json").read_text())
    assert real["status"].startswith("raised: RuntimeError: Expected all tensors to be on the same device")
    printed = [t for t in real["output_tail"].splitlines() if " ran" in t or " raised:" in t]
    assert len(printed) == 6 and printed == [t for t in r.output.splitlines() if t in printed]
    assert_as_real_run(r, HOST_READS / "ground" / "stop_tokens_on_the_host.json")


def test_a_composite_given_a_gpu_and_a_host_tensor_raises_where_the_op_it_calls_does():
    """A model built without a device and never moved, given a GPU batch, ran on under kx with
    exit 0: F.linear, matmul, einsum, layer_norm and F.embedding have no CUDA kernel of their
    own, so the check at the torch function level let them pass; in a real run the op each
    calls from C++ (addmm, mm, bmm, native_layer_norm, index_select) refuses the pair.
    Composites that only read a host tensor's shape (expand_as, view_as) run, and so does
    indexing by a host arange (CLIP's encode_text): index moves its indices first. The oracle:
    the H100's run of the same file printed the same nine lines and stopped at the same line."""
    path = HOST_READS / "model_left_on_the_host.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    (stop,) = [d for d in r.diagnostics if d.kind == "runtime"]
    assert stop.line == 50 and "wrapper_CUDA_addmm" in stop.message and r.exit_status != 0
    printed = [t for t in r.output.splitlines() if " ran" in t or " raised:" in t]
    raised = {t.split(" raised:")[0] for t in printed if " raised:" in t}
    assert raised == {"embedding", "layer_norm", "matmul", "einsum"}, printed
    assert "indexing by a host arange ran" in printed
    assert [k.name for k in r.kernels] == ["gelu_kernel"]
    real = json.loads((HOST_READS / "ground" / "model_left_on_the_host.json").read_text())
    assert real["status"].startswith("raised: RuntimeError: Expected all tensors to be on the same device")
    assert printed == [t for t in real["output_tail"].splitlines() if " ran" in t or " raised:" in t]
    assert_as_real_run(r, HOST_READS / "ground" / "model_left_on_the_host.json")


def test_indices_of_topk_and_argsort_of_kernel_output_are_distinct_as_pytorchs_are():
    """InfLLM's block retrieval (corpus 13) takes `topk(scores).indices.tolist()` of a
    kernel's scores and asserts the blocks are distinct: kx answered one placeholder value
    for every index, the file's own assert stopped the capture (exit 4) where the GPU runs
    on. Indices of data kx lacks are now what PyTorch defines them to be, distinct and in
    range (sort's and argsort's a permutation), guessed and said: the file runs to its end
    (exit 5, the launch after the read follows a guess)."""
    path = HOST_READS / "blocks_by_topk_of_scores.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], r.diagnostics
    assert [k.name for k in r.kernels] == ["block_score_kernel", "gathered_attention_kernel"]
    read = next(d for d in r.diagnostics if d.kind == "placeholder" and d.line == 48)
    assert "guessed" in read.message and "[0, 1, 2, 3, 4, 5]" in read.message
    assert r.exit_status == 5 and "blocks 6" in r.output
    ground = HOST_READS / "ground" / "blocks_by_topk_of_scores.json"  # the H100's run: the same two
    assert json.loads(ground.read_text())["status"] == "ok"
    assert_as_real_run(r, ground)


@pytest.mark.parametrize("shape", [(48,), (5, 48), (3, 7, 9), (2, 1, 6)])
def test_presumed_indices_have_the_shape_dtype_and_range_of_pytorchs_own(shape):
    """The oracle of the presumption: PyTorch's topk, sort and argsort on real data, every
    dimension: the same shape and dtype, distinct indices in range along the dimension (a
    permutation for sort and argsort)."""
    import torch

    from kx_core.compile.capturing.device.placeholders import presumed_indices

    x = torch.randn(shape)
    for dim in range(-len(shape), len(shape)):
        n = shape[dim]
        for name, call in [
            ("topk", lambda t, dim=dim, n=n: torch.topk(t, max(1, n // 2), dim=dim)),
            ("topk", lambda t, dim=dim, n=n: torch.topk(t, n, dim, False)),
            ("sort", lambda t, dim=dim: torch.sort(t, dim=dim)),
            ("argsort", lambda t, dim=dim: torch.argsort(t, dim)),
        ]:
            real = call(x)
            real = real if name == "argsort" else real.indices
            meta = call(x.to("meta"))
            args = (x.to("meta"), *((max(1, n // 2), dim) if name == "topk" else (dim,)))
            ((indices, presumed),) = presumed_indices(torch, name, args, {}, meta)
            assert presumed.shape == real.shape and presumed.dtype == real.dtype, (name, dim)
            along = presumed.movedim(dim, -1).reshape(-1, presumed.shape[dim])
            assert all(len(set(row)) == len(row) and 0 <= min(row) and max(row) < n for row in along.tolist())
            if name != "topk":
                assert (along.sort(-1).values == torch.arange(n)).all()


def test_a_dynamic_graphs_backward_is_shown_although_it_never_runs_as_aot_lowers_it_at_once():
    """Corpus 13's Flux kernels: a compiled RMSNorm given a tensor that requires grad at two
    sizes, never differentiated. The H100's real run compiled the second (dynamic) graph's
    backward kernels, not the first's. AOTAutograd's rule: a forward that saves sizes for
    its backward (dynamic shapes) has the backward lowered with it; the others are lowered
    at their first backward. The oracle: PyTorch's own run of the same function on CPU
    tensors, counting the backward compiler's calls without any backward."""
    import torch
    from torch._dynamo.backends.common import aot_autograd

    lowered = []

    def forward_compiler(gm, example_inputs):
        return gm.forward

    def backward_compiler(gm, example_inputs):
        lowered.append(sum(isinstance(x, torch.SymInt) for x in example_inputs))
        return gm.forward

    def rms_norm(x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w

    torch._dynamo.reset()
    compiled = torch.compile(
        rms_norm, backend=aot_autograd(fw_compiler=forward_compiler, bw_compiler=backward_compiler)
    )
    w = torch.ones(128, requires_grad=True)
    for n in (256, 1000):
        compiled(torch.randn(n, 128, requires_grad=True), w)
    torch._dynamo.reset()
    assert len(lowered) == 1 and lowered[0] > 0  # only the dynamic graph's, with its saved sizes

    path = HOST_READS / "compiled_dynamic_backward_unrun.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    names = [k.name for k in r.kernels]
    assert any("div_expand" in n for n in names) and any("mul_sum" in n for n in names), names
    assert r.exit_status == 0 and not [d for d in r.diagnostics if "backward" in d.message]
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_dynamic_backward_unrun.json")  # the H100's run


def test_a_check_of_a_guessed_error_passes_as_a_correct_kernels_does():
    """A library's self-check (`errs = [rel_err(...).item(), ...]; assert max(errs) < tol`)
    on errors kx could only guess stopped the file at the check with `AssertionError:
    [1.0, 1.0]`, and every launch after it was lost, where the real run passes and goes
    on (corpus 15: six files). An assert on a guessed value now passes, said at its line,
    as torch.testing.assert_close does, in each spelling of the check (MODE); the H200's
    real run is the oracle for what follows."""
    path = HOST_READS / "checks_of_kernel_output.py"
    text = path.read_text()
    real = json.loads((HOST_READS / "ground" / "checks_of_kernel_output.json").read_text())
    for mode in ("max", "all", "direct", "tensor", "not_any", "or"):
        r = compile_file(
            CompileRequest(
                str(path), target="cuda:90", text=text.replace('MODE = "max"', f'MODE = "{mode}"')
            ),
            use_cache=False,
        )
        c = compare(real, list(r.kernels))
        assert c.complete and not c.extra, (mode, [str(d) for d in r.diagnostics])
        assert not [d for d in r.diagnostics if d.kind == "runtime"], mode
        # no spelling steers: max() of the guesses only picks one of them, which the
        # assert then checks
        assert r.exit_status == 0, (mode, r.exit_status)
        if mode != "tensor":  # (there the difference is presumed zero: the check holds as it is)
            assert any(
                d.kind == "placeholder" and "a check (an assert" in d.message and d.line > 55
                for d in r.diagnostics
            ), mode


def test_a_guessed_truth_is_the_asserts_pass_and_an_ifs_decision(tmp_path):
    """placeholders.GuessedFloat compared: straight into an assert, the value that passes
    it, whichever way the check is written; in an `if`, the comparison as computed, and the
    ledger marks the file as steered. (Run as a file's code: pytest rewrites a test's own
    asserts into other bytecode.)"""
    from kx_core.compile.capturing.device import placeholders
    from kx_core.records.results import DataPlaceholder

    probe = tmp_path / "probe.py"
    probe.write_text(
        "assert guess < 1e-3\n"
        "assert not guess > 1e-3\n"
        "assert guess <= 1e-3 and guess == 0.0\n"
        "assert all(g < 1e-3 for g in (guess, guess))\n"
        "assert all([g < 1e-3 for g in (guess, guess)]), 'a list comprehension'\n"
        "assert not any([g > 1e-3 for g in [guess]])\n"
        "assert max([guess, guess]) < 1e-3\n"  # max() of guesses picks a guess: no decision
        "best = min(guess, guess)\n"
        "assert 0.0 <= guess < 1e-3 < guess + 1.0\n"
        "assert ok and (guess < 1e-3 or mode == 'adaptive'), guess\n"  # passes on its own
        "assert (\n    ok\n    and (guess < 1e-3\n         or mode in ('a', 'b'))\n), 'over lines'\n"
        "steered_by_asserts = ledger.first\n"
        "taken = 'if' if guess < 1e-3 else 'else'\n"
    )
    ledger = placeholders.LEDGER
    saved = (ledger.first, list(ledger.uses), set(ledger._seen))
    try:
        ledger.first = None
        scope = {
            "guess": placeholders.GuessedFloat(1.0, DataPlaceholder(".item()", "1.0", str(probe), 0)),
            "ledger": ledger,
            "ok": True,
            "mode": "fixed",
        }
        exec(compile(probe.read_text(), str(probe), "exec"), scope)
        assert scope["steered_by_asserts"] is None  # an assert's check steers nothing
        assert scope["taken"] == "else" and ledger.first is not None
        # max() of a guess and a real number may answer the number: a decision on the guess
        ledger.first = None
        exec(compile("mixed = max(guess, 0.5)\n", str(probe), "exec"), scope)
        assert scope["mixed"] == 1.0 and ledger.first is not None
        # the same bytecode as `assert not c or x`, from an `if`: its test is no assert's,
        # and a pass that would skip a call (a launch, a print) skips what a real run makes
        for n, decision in enumerate(
            ("if guess > 1e-3: assert ok\n", "assert guess < 1e-3 or print() is None\n")
        ):
            ledger.first = None
            path = tmp_path / f"decision{n}.py"
            path.write_text(decision)
            exec(compile(decision, str(path), "exec"), scope)
            assert ledger.first is not None, decision
    finally:
        ledger.first, ledger.uses, ledger._seen = saved[0], saved[1], saved[2]


def test_a_decode_loop_runs_on_while_no_sequence_has_met_eos():
    """Reference LLM generators stop once every sequence met EOS: `eos_reached |=
    (~input_text_mask[:, cur_pos]) & (next_token == eos_id)`, then `if all(eos_reached):
    break`. The mask is data kx knows, the comparison a placeholder presumed all False; the
    `&` of the two lost both, `all()` read a bare placeholder True, and kx stopped the loop
    after the prompt with exit 0 (llama's two decode loops, corpus 15: 3 of 5 compiles).
    The op now runs on the presumption with the known data, a guess said where it is read."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "decode_until_eos.py"), target="cuda:90"), use_cache=False
    )
    real = json.loads((HOST_READS / "ground" / "decode_until_eos.json").read_text())
    c = compare(real, list(r.kernels))
    assert c.complete and not c.extra, [str(d) for d in r.diagnostics]
    (k,) = {k.name for k in r.kernels}
    assert sum(x.launch.count for x in r.kernels) == 12 - 2  # a launch a step, prompt to end
    assert r.exit_status == 5  # the loop's test read a guess: said
    assert any(d.kind == "placeholder" and "guessed" in d.message for d in r.diagnostics)


def test_an_op_with_no_meta_kernel_runs_its_cpu_kernel_on_stand_ins():
    """`nn.CTCLoss` with tensor lengths calls `aten::_ctc_loss.Tensor`, which has CPU and
    CUDA kernels and no Meta kernel: the capture stopped there ("attempted to run this
    operator with Meta tensors"; conformer's training, corpus 15), or, where kx knew every
    input, made a loss with no backward. Its CPU kernel on stand-ins now shapes it, under
    autograd, so the backward runs and the optimizer's kernels launch as on the H200."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "ctc_loss_training_step.py"), target="cuda:90"), use_cache=False
    )
    assert not [d for d in r.diagnostics if d.kind in ("runtime", "not-launched")], [
        str(d) for d in r.diagnostics
    ]
    real = json.loads((HOST_READS / "ground" / "ctc_loss_training_step.json").read_text())
    c = compare(real, list(r.kernels))
    assert c.complete and not c.extra
    assert sum(x.launch.count for x in r.kernels) == 4  # weight and bias, two steps


def test_a_buffer_filled_column_by_column_is_known_where_written(tmp_path):
    """`k = torch.empty(...)` then `k.data[..., i] = f` stage by stage (ODE solvers' Runge-
    Kutta steps): k's storage was unknown (empty) and a write into part of it kept it so,
    so the error ratio of every step was a placeholder and `while t < t_end` ran on guesses
    until the capture's timeout (torchdiffeq, corpus 17). What the file wrote into unknown
    storage is now known, element by element; the rest stays unknown. The oracle: the same
    solve run on real CPU tensors takes the same steps."""
    import importlib.util

    path = HOST_READS / "adaptive_steps_filled_by_column.py"
    spec = importlib.util.spec_from_file_location("adaptive_steps", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (its launch sits under __main__)
    steps, rejected, y = module.solve("cpu")
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    assert_as_real_run(r, HOST_READS / "ground" / "adaptive_steps_filled_by_column.json")  # the H100's run
    (k,) = r.kernels
    assert {a.name: a.value for a in k.launch.args}["steps"] == steps and rejected > 0
    assert f"steps {steps} rejected {rejected} y {[round(v, 4) for v in y.tolist()]}" in r.output
    # what was not written stays unknown: its read is a placeholder, said at its line
    probe = tmp_path / "half_written.py"
    probe.write_text(
        "import torch\n"
        "k = torch.empty(3, 2, device='cuda')\n"
        "k[:, 0] = torch.arange(3.0, device='cuda')\n"
        "print('written', k[:, 0].tolist())\n"
        "print('all', k.sum().item())\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "written [0.0, 1.0, 2.0]" in r.output
    (said,) = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert said.line == 5 and ".item()" in said.message


def test_a_loop_deciding_on_guesses_is_left_and_said(tmp_path):
    """An adaptive solve steps `while t < t_end:` on the error ratios of a kernel's output
    (torchdiffeq's `while next_t > t1:`, corpus 17): a capture does not have them, and the
    placeholder answer kept the loop going until the file's timeout. Once one place of one
    call has decided on guesses LOOP_DECISIONS times, kx answers the other way there, once,
    and says so: the loop ends, the kernel after it is captured, marked, exit 5."""
    from kx_core.compile.capturing.device.placeholders import LOOP_DECISIONS

    path = HOST_READS / "adaptive_loop_on_kernel_output.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90", timeout_s=120), use_cache=False)
    left = [d for d in r.diagnostics if f"decided on {LOOP_DECISIONS} times" in d.message]
    # the loop's own test (line 41) and the step's acceptance inside it (line 47)
    assert sorted(d.line for d in left) == [41, 47], [str(d) for d in r.diagnostics]
    assert all("answered False once, to leave it" in d.message for d in left)
    assert f"steps {LOOP_DECISIONS} rejected 1" in r.output
    by_name = {k.name: k for k in r.kernels if k.status == "compiled"}
    assert set(by_name) == {"rhs_kernel", "energy_kernel"} and by_name["energy_kernel"].after_placeholder
    assert r.exit_status == 5
    assert_as_real_run(r, HOST_READS / "ground" / "adaptive_loop_on_kernel_output.json")  # the H100's run
    # a `for` loop ends with its iterable: a guessed `break` (an EOS test) is not flipped, so
    # a decode loop runs its whole range, as a real run that draws no EOS does
    probe = tmp_path / "decode_range.py"
    probe.write_text(
        "import torch\n"
        "tok = torch.zeros(1, dtype=torch.int64, device='cuda')\n"
        "steps = 0\n"
        "for i in range(100):\n"
        "    tok = torch.randint(0, 50, (1,), device='cuda') + tok * 0 + torch.empty(1, device='cuda').long()\n"
        "    if (tok == 7).all():\n"
        "        break\n"
        "    steps += 1\n"
        "print('steps', steps)\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90", timeout_s=120), use_cache=False)
    assert "steps 100" in r.output and not [d for d in r.diagnostics if "decided on" in d.message], [
        str(d) for d in r.diagnostics
    ]


def test_an_lstm_flattened_in_a_compiled_forward_runs_as_it_does_on_a_gpu():
    """`self.lstm.flatten_parameters()` inside a compiled forward (Tacotron 2's encoder,
    corpus 18) reads every weight's data_ptr() at a graph break; dynamo compiled kx's own
    data_ptr there, which then ran into itself until Python's recursion limit (exit 4 at
    the compiled call). The forward now runs to its end, its kernels captured."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "compiled_lstm_flattened.py"), target="cuda:90"), use_cache=False
    )
    assert r.exit_status == 0 and not [d for d in r.diagnostics if d.kind == "runtime"], [
        str(d) for d in r.diagnostics
    ]
    assert "out (2, 37, 64)" in r.output
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_lstm_flattened.json")  # the H100's run
    assert [k for k in r.kernels if k.status == "compiled" and k.name.startswith("triton_")]


def test_a_packed_sequence_training_step_compiles_on_the_capture_gpu():
    """A compiled training step over `pack_padded_sequence` / an LSTM / `pad_packed_sequence`
    (Tacotron 2's training, corpus 18): aten::detach's composite kernel dispatches detach
    again, which kx's composite checks sent back through the composite until Python's
    recursion limit; and the padded output, made inside `_pad_packed_sequence` by an aten
    factory (which always names its device), was taken for a host tensor, so the compiled
    attention over it met kx's own "mat2 is on cpu". Now the step runs to its end, the loss
    read exactly."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "compiled_packed_lstm_training.py"), target="cuda:90"),
        use_cache=False,
    )
    assert r.exit_status == 0 and not [d for d in r.diagnostics if d.kind in ("runtime", "placeholder")], [
        str(d) for d in r.diagnostics
    ]
    assert "loss " in r.output
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_packed_lstm_training.json")  # the H100's run
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert any("backward" in n for n in names), names


def test_draws_in_a_compiled_graph_are_sampled_as_eager_ones_are():
    """A draw inside a compiled graph is sampled on the CPU from the host's numbers as they
    stand, each given back as the function mode gives back an eager draw's: the same draws
    made compiled and eagerly after the same manual_seed (equal on a GPU under
    fallback_random) are the same samples. Drawn one after another through the graph, the
    second draw differed (max diff 6.9)."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "compiled_and_eager_draws.py"), target="cuda:90"), use_cache=False
    )
    assert "max diff 0.0" in r.output, r.output
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_and_eager_draws.json")  # the H100's run
    (said,) = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert "sampled or guessed" in said.message  # a sample is still said where it is read


def test_a_mask_index_with_a_slice_in_a_compiled_spline_is_a_placeholder():
    """VITS's spline flow (corpus 18) indexes `widths[inside, :]` by a mask a capture does not
    have, compiled: dynamo resumes after the graph break in a function whose constants hold
    the slice, and kx's read of that function's bytecode (cached by the code object, which
    hashes its constants; a slice is unhashable on Python 3.11) raised "unhashable type:
    'slice'" (exit 4). Now each index is a placeholder said at its line and the file runs to
    its end."""
    r = compile_file(
        CompileRequest(str(HOST_READS / "compiled_spline_by_mask.py"), target="cuda:90"), use_cache=False
    )
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    said = {d.line for d in r.diagnostics if d.kind == "placeholder" and "boolean-mask index" in d.message}
    assert {22, 23, 24} <= said, [str(d) for d in r.diagnostics]
    assert "out (8, 96)" in r.output and r.exit_status == 5
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_spline_by_mask.json")  # the H100's run


def test_a_check_that_raises_is_read_as_an_assert(tmp_path):
    """`if torch.min(x) < left or torch.max(x) > right: raise ValueError(...)` on a kernel's
    output (VITS's spline domain check, corpus 18) raised on the placeholder answer, where a
    real run with a correct kernel passes: the file stopped (exit 4). A branch that goes
    straight to raising an exception is now read as an assert's is: the answers that pass,
    said at the line, steering nothing."""
    probe = tmp_path / "domain_check.py"
    probe.write_text(
        "import torch, triton, triton.language as tl\n"
        "@triton.jit\n"
        "def scale(p, n, BLOCK: tl.constexpr):\n"
        "    o = tl.arange(0, BLOCK)\n"
        "    tl.store(p + o, tl.load(p + o, mask=o < n) * 0.5, mask=o < n)\n"
        "x = torch.rand(100, device='cuda')\n"
        "scale[(1,)](x, 100, BLOCK=128)\n"
        "if torch.min(x) < -1.0 or torch.max(x) > 1.0:\n"
        "    raise ValueError('Input to a transform is not within its domain: {}'.format(x.shape))\n"
        "scale[(1,)](x, 100, BLOCK=128)\n"
        "print('in domain')\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "in domain" in r.output and r.exit_status == 0, [str(d) for d in r.diagnostics]
    said = [d for d in r.diagnostics if d.kind == "placeholder" and "an `if` that raises" in d.message]
    assert said and all(d.line == 8 for d in said)


def test_a_tensor_moved_to_another_tensors_device_is_where_that_tensor_is():
    """`x.to(other)` and `x.type_as(other)` take other's device and dtype (ATen's to.other:
    `to(other.device, other.dtype, ...)`). A host tensor moved to a GPU token's place stayed
    the host's under kx, and the KV cache's scatter_ raised "index is on cpu" where the GPU
    runs on (mistral-src's reference decode, corpus 17); a GPU tensor given a host tensor's
    place was still said to be on the GPU. Each printed line is what PyTorch's rule gives:
    the positions' values carried to the GPU, the host copy's dtype and values, and a sum on
    the host that only runs where both are there."""
    path = HOST_READS / "device_of_another_tensor.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    assert_as_real_run(r, HOST_READS / "ground" / "device_of_another_tensor.json")  # the H100's run
    (k,) = r.kernels
    assert k.launch.count == 3 and {a.name: a.value for a in k.launch.args}["n_cached"] == 6
    assert r.output.strip().splitlines() == [
        "position 5 cached 6 block 8",
        "position 6 cached 7 block 8",
        "position 7 cached 8 block 8",
        "scaled torch.Size([64])",
        "back torch.float64 [1.0, 1.0, 1.0]",
        "sum on the host [1.0, 2.0, 3.0]",
    ]


def test_a_compiled_graphs_host_result_moved_by_device_put_is_on_the_gpu():
    """Inductor compiles a forward's host part for the CPU and moves its result to the GPU
    with `torch.ops.prims.device_put.default(buf, device('cuda', 0))`: the device given
    positionally, as the op's schema types it, reached CUDA's copy ("Found no NVIDIA
    driver"; mistral-src's MoE reference, corpus 17, 0 kernels). Now the table is a GPU
    tensor and the file's own kernel takes it."""
    path = HOST_READS / "compiled_host_table_to_gpu.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not [d for d in r.diagnostics if d.kind != "uncached"], [
        str(d) for d in r.diagnostics
    ]
    assert "rotate_kernel" in {k.name for k in r.kernels if k.status == "compiled"}
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_host_table_to_gpu.json")  # the H100's run
    assert r.output.strip().splitlines()[-1] == "table (12, 8) cuda torch.float32"


def test_a_training_loop_steers_the_file_as_its_real_run(tmp_path):
    """Gradients are the autograd engine's (its C++ backward formulas, AccumulateGrad) and,
    under torch.compile, AOTAutograd's compiled backward: kx computed neither on the CPU
    copies, so after the first optimizer step every parameter was unknown and the loop's
    `loss.item()` a placeholder (exit 5; torchdiffeq's training solves ran on guesses until
    the timeout). Both now carry their data: the loss the file reads after 30 SGD steps,
    the block it picks from it and the weights left above a threshold are those of the
    same training run on real CPU tensors, compiled and eager."""
    import importlib.util

    path = HOST_READS / "compiled_training_steers_kernel.py"
    spec = importlib.util.spec_from_file_location("compiled_training", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (its launches sit under __main__)
    losses, kept = module.train("cpu", compiled=False)
    block = 128 if losses[-1] < losses[0] / 2 else 32
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_training_steers_kernel.json")  # the H100's run
    (k,) = [k for k in r.kernels if k.name == "scale_rows_kernel"]
    args = {a.name: a.value for a in k.launch.args}
    assert (args["n"], args["BLOCK"]) == (kept, block) and k.launch.grid[0] == -(-kept // block)
    printed = f"block {block} kept {kept}"
    assert f"loss {losses[0]:.4f} -> " in r.output and printed in r.output, r.output
    backward = [k for k in r.kernels if "threshold_backward" in k.name]
    assert backward and all(k.status == "compiled" for k in backward)
    # the same loop eager: the engine's own backward formulas, then SGD's update
    eager = tmp_path / "eager_training.py"
    eager.write_text(
        "import runpy\n"
        f"m = runpy.run_path({str(path)!r}, run_name='fixture')\n"
        "losses, kept = m['train']('cuda', compiled=False, steps=10)\n"
        "print('eager', round(losses[-1], 4), kept)\n"
    )
    losses, kept = module.train("cpu", compiled=False, steps=10)
    r = compile_file(CompileRequest(str(eager), target="cuda:90"), use_cache=False)
    said = [str(d) for d in r.diagnostics if d.kind != "no-launch"]  # (it launches nothing)
    assert r.exit_status == 0 and not said, said
    assert f"eager {round(losses[-1], 4)} {kept}" in r.output, r.output


def test_a_tensor_hook_runs_on_the_capture_device_with_known_gradients(tmp_path):
    """A tensor's backward hook is Python the autograd engine calls inside `loss.backward()`,
    where the capture mode is off: a torch.compile'd function called there reached CUDA
    ("Found no NVIDIA driver") and stopped the file. It runs as a custom Function's backward
    does now: its compiled kernel captured, and the gradient it returns the real one (the
    same hook on real CPU tensors)."""
    import torch

    path = tmp_path / "hooked.py"
    path.write_text(
        "import torch\n\n"
        "@torch.compile\n"
        "def scaled(g):\n"
        "    return g * 0.5 + 1.0\n\n"
        "w = torch.tensor([1.0, 2.0, 3.0], device='cuda', requires_grad=True)\n"
        "w.register_hook(lambda g: scaled(g))\n"
        "(w * w).sum().backward()\n"
        "print('grad', w.grad.tolist())\n"
    )
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w.register_hook(lambda g: g * 0.5 + 1.0)
    (w * w).sum().backward()
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    (k,) = r.kernels
    assert k.status == "compiled" and k.name.startswith("triton_")
    assert f"grad {w.grad.tolist()}" in r.output


def test_a_selection_of_a_buffer_filled_in_part_is_known_where_it_reads_written_elements(tmp_path):
    """A KV cache filled position by position (`cache[pos] = ...` into `torch.empty`) and
    read at written positions through an index tensor (`cache[idx]`, index_select) was
    unknown, as if unwritten: the same selection made on the mask of written bytes now says
    whether every element it reads was written. A read of an unwritten row stays a
    placeholder, said at its line."""
    body = (
        "import torch\n"
        "cache = torch.empty(6, 4, device='{dev}')\n"
        "for pos in range(3):\n"
        "    cache[pos] = torch.arange(4.0, device='{dev}') + pos\n"
        "idx = torch.tensor([2, 0], device='{dev}')\n"
        "print('rows', cache[idx].tolist(), 'sum', cache.index_select(0, idx).sum().item())\n"
        "print('unwritten', cache[torch.tensor([4], device='{dev}')].sum().item())\n"
    )
    import contextlib
    import io

    printed = io.StringIO()  # the same lines on real CPU tensors (the unwritten row is garbage)
    with contextlib.redirect_stdout(printed):
        exec(body.format(dev="cpu"), {})  # noqa: S102 - the test's own program
    rows = printed.getvalue().splitlines()[0]
    path = tmp_path / "cache_rows.py"
    path.write_text(body.format(dev="cuda"))
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert rows.startswith("rows [[2.0, 3.0") and rows in r.output, r.output
    (said,) = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert said.line == 7 and ".item()" in said.message


def test_legacy_cuda_tensor_types_make_and_check_gpu_tensors():
    """torch.cuda's legacy types (`torch.cuda.LongTensor(n)` as an `out=`, `isinstance(x,
    torch.cuda.LongTensor)`, `x.type(torch.cuda.FloatTensor)`, `torch.cuda.FloatTensor(rows,
    cols)`, data given to one) allocate in C++ with CUDA's allocator and check dispatch keys:
    the capture stopped at the first ("Found no NVIDIA driver", Tacotron 2's
    get_mask_from_lengths in corpus 18). Now they make and check capture tensors, and the
    file prints what the H100's run printed up to its read of the kernel's output."""
    path = HOST_READS / "legacy_cuda_tensor_types.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    ground = HOST_READS / "ground" / "legacy_cuda_tensor_types.json"
    real = json.loads(ground.read_text())["output_tail"].splitlines()[0]
    assert real.startswith("mask (3, 7) 15 out torch.cuda.FloatTensor ")
    assert real.rsplit(" ", 1)[0] in r.output, r.output
    assert_as_real_run(r, ground)
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert [a.value for a in k.launch.args if a.name == "limit"] == [3]


def test_a_legacy_cuda_type_in_a_compiled_function_decides_as_dynamo_does_on_a_gpu():
    """In a compiled frame a legacy type's constructor, an isinstance of one and a
    `.type(...)` cast decide as dynamo decides for PyTorch's own types. Dynamo's table of
    tensor types holds the host's only, so on torch 2.11 (the H100's run) `isinstance(x,
    torch.cuda.FloatTensor)` is False in the graph (its kernel has no `mul`) and all of it is
    one graph (fullgraph=True); a newer dynamo refuses an isinstance whose type has its own
    instance check, which PyTorch's type has (asked of it here), so with fullgraph=True the
    call raises there, as it would on a GPU."""
    import torch
    from torch._dynamo.variables import builtin

    probe = HOST_READS / "compiled_legacy_types.py"
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    refuses = getattr(builtin, "_uses_custom_classinfo_check", None)
    if refuses is not None and refuses(torch.cuda.FloatTensor):
        (said,) = [d for d in r.diagnostics if d.kind == "runtime"]
        assert said.line == 18 and "isinstance() with custom type check" in said.message, str(said)
        return
    assert r.exit_status == 0 and not r.diagnostics, [str(d) for d in r.diagnostics]
    assert "out torch.cuda.HalfTensor (2, 6) True" in r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert "where" in k.name and "mul" not in k.name, k.name
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_legacy_types.json")  # the H100's run


def test_a_legacy_cuda_constructor_takes_its_arguments_as_the_host_types_does(tmp_path):
    """Sizes or data, as PyTorch's own legacy constructor decides (the host's
    torch.LongTensor is the oracle): ints and a torch.Size are sizes, a tuple or a list or a
    numpy array is data; a tensor of another type raises."""
    probe = tmp_path / "legacy_forms.py"
    probe.write_text(
        "import numpy as np\n"
        "import torch\n"
        "forms = [(), (7,), (2, 3), (torch.Size([2, 3]),), ((2, 3),), ([2, 3],), ([[1, 2]],), (np.arange(4),)]\n"
        "for a in forms:\n"
        "    gpu, host = torch.cuda.LongTensor(*a), torch.LongTensor(*a)\n"
        "    assert gpu.shape == host.shape and gpu.dtype == host.dtype and gpu.is_cuda, (a, gpu.shape)\n"
        "    if a and not isinstance(a[0], int) and not isinstance(a[0], torch.Size):\n"
        "        assert gpu.tolist() == host.tolist(), a\n"
        "try:\n"
        "    torch.cuda.LongTensor(torch.ones(2, device='cuda'))\n"
        "except TypeError as e:\n"
        "    print('raised', e)\n"
        "print('forms ok', len(forms))\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "forms ok 8" in r.output and "raised expected LongTensor" in r.output, [
        str(d) for d in r.diagnostics
    ]


def test_a_check_that_raises_in_a_compiled_function_is_read_as_in_the_file():
    """`if torch.min(x) < left or torch.max(x) > right: raise ValueError(...)` in a compiled
    function (VITS's spline flow, corpus 18): at the graph break dynamo's own bytecode runs
    the condition's jump, whose ends call resume functions, so the raise it guards was not
    seen and the guess raised (exit 4). dynamo's map from its bytecode to the file's finds
    the check: passed, said, and the rest of the function compiled."""
    probe = HOST_READS / "compiled_domain_check.py"
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "spline (64,)" in r.output and r.exit_status == 0, [str(d) for d in r.diagnostics]
    checks = [d for d in r.diagnostics if d.kind == "placeholder" and d.message.startswith("a check")]
    assert [d.line for d in checks] == [19], [str(d) for d in r.diagnostics]
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert any("tanh" in n for n in names), names  # the resume function's graph, after the check
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_domain_check.json")  # the H100's run


def test_a_sparse_times_dense_product_in_an_autograd_function_runs_on_the_capture_device():
    """`torch.matmul(torch.sparse_coo_tensor(indices, values, shape), b)` and its backward
    (pyGAT's SpecialSpmmFunction, corpus 17): a sparse capture tensor's product had no kernel
    ("Could not run 'aten::mm' with arguments from the 'SparseMeta' backend", exit 1). The
    sparse op's CPU kernel now lays out its result, on stand-ins holding the entries kx
    knows: the product's shape and strides are PyTorch's, and the kernel after it compiles."""
    path = HOST_READS / "sparse_spmm_function.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0 and not [d for d in r.diagnostics if d.kind == "runtime"], [
        str(d) for d in r.diagnostics
    ]
    assert "h (200, 16) (16, 1) grads (200, 16)" in r.output, r.output
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    assert {a.name: a.value for a in k.launch.args}["n_rows"] == 200
    ground = HOST_READS / "ground" / "sparse_spmm_function.json"
    assert (
        json.loads(ground.read_text())["output_tail"].splitlines()[0] in r.output
    )  # 2207 edges, as on the H100
    assert_as_real_run(r, ground)


def test_a_one_element_tensor_among_a_sizes_elements_is_read_as_its_number(tmp_path):
    """`torch.empty((1, n_blocks, 4))` with a 0-dim GPU count (MultipoleAttention's split-KV
    buffers, corpus 19): PyTorch's argument parser reads the tensor element's value, which a
    capture tensor cannot answer in C++ ("Tensor.item() cannot be called on meta tensors",
    exit 4). Now each such element is read as the file's own `int(n)` would be: exact where
    kx knows it (no guess said), a placeholder said where a kernel wrote it."""
    probe = tmp_path / "sizes_from_counts.py"
    probe.write_text(
        "import torch\n"
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def count_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n, other=0)\n"
        "    tl.store(out_ptr, tl.sum((x > 0).to(tl.int32)))\n"
        "x = torch.randn(64, device='cuda')\n"
        "known = torch.tensor(3, device='cuda')\n"
        "shapes = [torch.empty((1, known, 4), device='cuda').shape, torch.empty(2, known, device='cuda').shape,\n"
        "          x.new_zeros((known, 2)).shape, x[:6].view(known, 2).shape]\n"
        "print('known', [tuple(s) for s in shapes])\n"
        "count = torch.empty((), dtype=torch.int32, device='cuda')\n"
        "count_kernel[(1,)](x, count, 64, BLOCK=64)\n"
        "print('unknown', torch.empty((1, count, 4), device='cuda').dim())\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90"), use_cache=False)
    assert "known [(1, 3, 4), (2, 3), (3, 2), (3, 2)]" in r.output and "unknown 3" in r.output, [
        str(d) for d in r.diagnostics
    ]
    said = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert [d.line for d in said] == [16] and "int(tensor)" in said[0].message, [
        str(d) for d in r.diagnostics
    ]


def test_a_default_device_set_before_the_first_compile_is_the_compiled_codes_too():
    """`torch.set_default_device("cuda")` before torch.compile is first used (minimalRL's
    scripts, Karpathy's flows): a real run's compiled forward makes its `torch.zeros(m)` on
    the GPU, beside the GPU weights. kx cleared every default when dynamo was first prepared
    (meant for the capture's own meta default), so the zeros were the host's, dynamo stopped
    at "found two different devices cpu, cuda:0" and the forward ran eagerly (exit 4)."""
    path = HOST_READS / "compiled_default_device_flows.py"
    r, names = _captured_in_whole(path)
    assert "flows cuda:0 cuda:0 (64, 8)" in r.output
    assert any("backward" in n for n in names) and any("exp" in n for n in names), sorted(names)
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_default_device_flows.json")  # the H100's run


def test_a_function_disabled_before_dynamo_loads_stays_out_of_compiled_graphs():
    """`torch._dynamo.disable(f)` and `@torch.compiler.disable`, called before anything is
    compiled, while kx's capture holds dynamo's import back: kx's stand-in answered f
    itself, so dynamo later traced f into the graph (VQ-VAE-2's codebook update, corpus
    19: 141 kernels the GPU never made, at exit 0). The graph now breaks at both, as on a
    GPU: the compiled kernels are the encoder's and decoder's, none the codebook's."""
    path = HOST_READS / "compiled_disabled_codebook.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert "vqvae (4, 3, 32, 32) (1,)" in r.output, [str(d) for d in r.diagnostics]
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert any("backward" in n for n in names), sorted(names)
    assert all("convolution" in n for n in names), sorted(names)  # no pow, embedding, mean or EMA mul
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_disabled_codebook.json")  # the H100's run


def test_torchs_own_disabled_helpers_do_not_load_dynamo(tmp_path):
    """The stand-in's reason to exist: torch's own `_disable_dynamo` meta kernels, called by
    a file that never compiles, leave torch._dynamo unloaded (1.2 s) in a fresh worker. A
    warm server's child may have it imported already (dynamo_preimport: paid once there)."""
    probe = tmp_path / "no_compile.py"
    probe.write_text(
        "import sys\n"
        "import torch\n"
        "x = torch.randn(64, 64, device='cuda')\n"
        "y = torch.nn.functional.layer_norm(x @ x, (64,)).softmax(-1)\n"
        "print('dynamo loaded', type(sys.modules.get('torch._dynamo')).__name__)\n"
    )
    r = compile_file(CompileRequest(str(probe), target="cuda:90", cold=True), use_cache=False)
    assert "dynamo loaded DeferredDynamo" in r.output, r.output


def test_masked_select_of_an_unknown_mask_keeps_autograd_history():
    """`loss.masked_select(non_pad_mask).sum().backward()` where the mask is the GPU's data
    (attention-is-all-you-need's label-smoothed loss, corpus 19): kx sized the result by a
    placeholder as a fresh tensor, with no autograd history, and the file stopped at
    "element 0 of tensors does not require grad" where the GPU trains on. It is now the
    mask index of x on their broadcast shape (PyTorch's definition), history kept."""
    path = HOST_READS / "compiled_masked_select_loss.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert "loss True True (128, 64)" in r.output, [str(d) for d in r.diagnostics]
    assert r.exit_status == 5 and not [d for d in r.diagnostics if d.kind == "runtime"]
    said = {d.line for d in r.diagnostics if d.kind == "placeholder" and "masked_select" in d.message}
    assert said == {_line_of(path, "return loss.masked_select(non_pad_mask)")}, said
    names = {k.name for k in r.kernels if k.status == "compiled"}
    assert any("backward" in n for n in names), sorted(names)
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_masked_select_loss.json")  # the H100's run


def test_a_sparse_adjacency_built_on_the_host_is_the_cpus_own():
    """pygcn's load_data builds its normalised adjacency on the host (sparse COO, coalesce()
    to merge duplicate edges, torch.sparse.sum for the degrees), then moves it to the GPU. kx
    made it a sparse meta tensor, which has no data to coalesce ("aten::_coalesce ...
    SparseMeta"), and the file stopped before its first launch (corpus 20's pygcn: 0 of 39
    compiles). A sparse tensor made from host data kx knows is now the CPU's own, as in a real
    run: the entry count after coalesce() is exact, and it is the kernel's grid."""
    path = HOST_READS / "sparse_adjacency_from_host.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "entries 239 support (50, 16) sparse torch.sparse_coo True" in r.output, r.output
    (k,) = r.kernels
    args = {a.name: a.value for a in k.launch.args}
    assert k.status == "compiled" and args["n_entries"] == 239 and k.launch.grid[0] == 4
    assert_as_real_run(r, HOST_READS / "ground" / "sparse_adjacency_from_host.json")  # the H100's run


def test_torch_tensor_of_gpu_actions_after_a_compile_has_the_nestings_shape():
    """The Decision Transformer's sampler makes its action history with `torch.tensor(actions)`
    of one-element GPU tensors. After the file's first torch.compile the host's default device
    is the CPU again, and PyTorch's own reading of each element (item()) met capture tensors:
    "Tensor.item() cannot be called on meta tensors" stopped corpus 20's dt_atari_sample (once
    kx's work limit left the actions' data unknown). Its shape and dtype are now PyTorch's for
    that nesting, its data unknown until read."""
    path = HOST_READS / "compiled_action_history.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    for step, n in enumerate((1, 2, 3)):
        assert f"step {step} history ({n},) torch.int64" in r.output, r.output
    argmax = [k for k in r.kernels if k.name == "argmax_kernel"]
    assert len(argmax) == 1 and argmax[0].launch.count == 3
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_action_history.json")  # the H100's run


def test_host_tensors_made_before_and_after_the_first_compile_meet():
    """CleanRL's rollouts: storage allocated on the host before the policy is first compiled
    (a capture tensor that stands for a CPU tensor), observations made on the host after it
    (the CPU's own tensors, since dynamo needs the real default device). Their sum stopped
    corpus 20's ppo_atari with "Tensor on device cpu is not on the expected device meta!"
    where a real run has both on the CPU. The op now runs on one kind, its data followed."""
    path = HOST_READS / "host_buffer_across_first_compile.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [str(d) for d in r.diagnostics]
    assert "batch (8, 4) returns 30.0 logits (2,)" in r.output, r.output
    assert all(d.kind == "placeholder" and "pad_mm" in d.message for d in r.diagnostics)
    assert [k for k in r.kernels if k.status == "compiled"]
    assert_as_real_run(r, HOST_READS / "ground" / "host_buffer_across_first_compile.json")  # the H100's run


def test_a_deep_copied_tensor_keeps_its_data():
    """`copy.deepcopy` of a capture tensor (CleanRL SAC's eager twin of its networks and
    `log_alpha`): Tensor.__deepcopy__ clones it inside the capture mode's handler, where the
    clone's data was not followed, and the twin's `log_alpha.exp().item()` was a placeholder
    (1.0) in corpus 20's SAC. The copy now has the original's data: exp(0.5) picks block 64,
    as on the GPU, nothing guessed."""
    path = HOST_READS / "deepcopied_twin_alpha.py"
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    assert "alpha 1.6487 block 64 steps 15" in r.output, r.output
    (k,) = r.kernels
    assert k.launch.grid[0] == 16 and {a.name: a.value for a in k.launch.args}["BLOCK"] == 64
    assert_as_real_run(r, HOST_READS / "ground" / "deepcopied_twin_alpha.json")  # the H100's run


def test_constant_folding_of_a_mul_by_zero_stays_off_the_gpu():
    """Inductor's constant folder, when it is built, replaces a `mul` by the integer 0 with
    `torch.full([1], 0, device=<the node's device>)`: a real CUDA tensor, which started CUDA
    on this machine ("Found no NVIDIA driver"), and the compiled loss of pytorch-flows' main.py
    (momentum set to 1 after each epoch, `1 - momentum` = 0) ran eagerly with its backward
    (corpus 21: three flows programs, 46-58 compiles missing each). The fold's value is made on
    the CPU: every graph compiles, forward and backward, both epochs."""
    path = HOST_READS / "compiled_flow_momentum_reset.py"
    r, names = _captured_in_whole(path)
    assert "flow trained 8 steps, momentum 1" in r.output
    assert any("backward" in n for n in names), sorted(names)
    # the batch counter's update (`mul_(0)` while the momentum is 0, then `mul_(1)`)
    assert any(n.startswith("triton_poi_fused_add_copy_") for n in names), sorted(names)
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_flow_momentum_reset.json")  # the H200's run


def test_frozen_parameters_are_lowered_on_the_gpu_and_folded_as_on_the_gpu():
    """Under Inductor's freezing an eval model's parameters and buffers become constants of
    the graph, lowered on the device their data is on. A capture tensor's data is meta to
    torch's own code, so the lowering put the convolution's weight on meta beside the GPU
    fakes ("Expected all tensors to be on the same device") and the model ran eagerly (exit 4):
    the constants are lowered on cuda:0. What freezing folds from them was not the GPU's
    either: Inductor's constant folder keeps no result on meta, and the H100 folded the eval
    batch norm into the convolution where kx lowered it apart (10 compiles, said with exit 5).
    A fold's meta result now counts as the GPU's while the folder keeps it: the H100's 9
    compiles, exit 0 (under torch 2.11, the H100's, the kernels' names are its too)."""
    path = HOST_READS / "compiled_frozen_inference.py"
    r, names = _captured_in_whole(path)
    assert "frozen model served 2 batches, logits (4, 16)" in r.output
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    compiled = [k for k in r.kernels if k.status == "compiled"]
    assert len(compiled) == 9 and not any(k.after_placeholder for k in compiled)
    assert not any("batch_norm" in n for n in names), sorted(names)  # folded into the convolution
    assert any("softmax" in n for n in names), sorted(names)
    assert_as_real_run(r, HOST_READS / "ground" / "compiled_frozen_inference.json")  # the H100's run


def test_a_buffer_made_on_a_host_weights_device_is_the_hosts():
    """A tensor a real run has on the host says it is on the GPU (kx's capture tensors all
    do), but the device it says is its own object: passed on as a factory's device
    (`torch.zeros(..., device=W_q.device)`, mixtral-offloading's 3-bit packing) it makes a
    host tensor, as on a real run. It made a GPU one, and ORing the host weight's rows into
    it raised "found at least two devices" where a real run packs on the CPU (corpus 22)."""
    import torch

    path = HOST_READS / "packed_on_the_weights_device.py"
    r, names = _captured_in_whole(path)
    assert r.exit_status == 0, [str(d) for d in r.diagnostics]
    # the packing as torch computes it here, on the CPU: the values are exact, not sampled
    torch.manual_seed(0)
    w = torch.randint(0, 8, (40, 24), dtype=torch.uint8).to(torch.int32)
    packed = sum(w[i::10] << (3 * (9 - i)) for i in range(10))
    assert f"packed checksum {int(packed.sum())}" in r.output, r.output
    assert names == {"unpack_3bit_kernel"}
    assert_as_real_run(r, HOST_READS / "ground" / "packed_on_the_weights_device.json")  # the H100's run
