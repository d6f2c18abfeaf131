"""The app on PyTorch's launch paths (issue 28): an Inductor output module's kernels and
their lines in the module's strings; a capture that says what it could not show."""

from __future__ import annotations

from gui_helpers import open_and_wait
from kx_gui.panes.kernels_pane import COLUMNS
from kx_testing import ROOT

MODULE = ROOT / "fixtures" / "inductor" / "mlp_0_forward_output_code.py"

SCRIPT = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 256)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x))


model = torch.compile(Block().cuda())
with torch.no_grad():
    y = model(torch.randn(16, 128, device="cuda"))
"""


def test_an_inductor_modules_kernel_lines_link_to_its_stages(qtbot, make_window):
    w = make_window()
    result = open_and_wait(qtbot, w, MODULE)
    names = [k.name for k in result.kernels]
    assert names and all(n.startswith("triton_") for n in names), result.diagnostics
    lines = MODULE.read_text().splitlines()
    load = next(i for i, text in enumerate(lines, start=1) if "tl.load(" in text)
    w.kernels_pane.table.selectRow(0)
    kernel = w.session.kernel
    assert kernel.source_line < load  # the kernel's def, in the module's string
    linked = w.session.source_map.ir_lines(load)
    assert linked.get("ttgir") and linked.get("ptx"), linked
    assert not w.kernels_pane.notice.isVisible()


def test_a_file_that_launches_none_of_its_imported_kernels_says_so(qtbot, make_window, tmp_path):
    lib = tmp_path / "mykernels"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "ops.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def double(x_ptr, n, B: tl.constexpr):\n    o = tl.program_id(0) * B + tl.arange(0, B)\n"
        "    tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)\n"
    )
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import torch\nfrom mykernels.ops import double\n\nx = torch.empty(64, device='cuda')\n"
    )
    w = make_window()
    result = open_and_wait(qtbot, w, driver)
    assert result.exit_status == 4
    notice = w.kernels_pane.notice
    assert notice.isVisible() and "double" in notice.text() and "never launched" in notice.text()
    assert "capture incomplete" in w.status_label.text()


def test_a_torch_compile_scripts_model_line_links_to_its_kernels_stages(qtbot, make_window, tmp_path):
    script = tmp_path / "model.py"
    script.write_text(SCRIPT)
    gelu = next(i for i, text in enumerate(SCRIPT.splitlines(), start=1) if "gelu(" in text)
    w = make_window()
    result = open_and_wait(qtbot, w, script)
    assert result.exit_status == 0 and result.kernels, result.diagnostics
    row = next(i for i, k in enumerate(result.kernels) if "gelu" in k.name)
    w.kernels_pane.table.selectRow(row)
    assert w.session.source_map.ir_lines(gelu).get("ttgir")
    note = w.kernels_pane.table.item(row, COLUMNS.index("note"))
    assert f"from line {gelu} of the file" in note.text()
