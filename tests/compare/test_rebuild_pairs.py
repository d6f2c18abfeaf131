"""A rebuild's records paired with the build before: an edited config's label changes."""

from __future__ import annotations

from kx_core.compare.rebuild import edited_pair, pair_rebuild
from kx_core.compile import CompileRequest, compile_file
from kx_testing import KERNELS


def test_an_edited_config_pairs_with_its_old_label(tmp_path):
    text = (KERNELS / "matmul_autotune.py").read_text()
    path = tmp_path / "matmul_autotune.py"
    path.write_text(text)
    before = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False).kernels
    path.write_text(text.replace("num_warps=4, num_stages=2)", "num_warps=4, num_stages=3)"))
    after = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False).kernels
    pairs = pair_rebuild(before, after)
    assert [(p.before, p.after) for p in pairs] == [(i, i) for i in range(len(after))]
    assert [p.relabelled for p in pairs] == [False, False, False, True]
    assert [p.changed for p in pairs] == [False, False, False, True]
    # Ctrl+D shows the edited config whichever is selected
    assert all(edited_pair(pairs, i) == pairs[3] for i in range(len(after)))
    # no edit: the selected one, beside itself
    same = pair_rebuild(after, after)
    assert edited_pair(same, 1) == same[1] and not any(p.changed for p in same)
