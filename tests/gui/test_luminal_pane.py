"""Luminal pane: the drills' figures, drawn."""

from __future__ import annotations

from kx_core.luminal import arena as l4
from kx_core.luminal import graph as l1
from kx_core.luminal import search as l3


def test_graph_search_and_slab_views(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.luminal_pane
    g, *_ = l1.build_mlp(64, 256, 64)
    assert pane.graph_table.rowCount() == len(g.nodes) and pane.graph_bytes == g.materialized_bytes()
    assert "[M, N, K] = [64, 64, 256]" in pane.graph_info.text()
    # the search tab: the budget-10 run of drill L3 and its finalist walk
    space, measure = l3.mlp_space(), l3.mlp_measure()
    expected = l3.genetic_search(space, measure, budget=10, seed=0)
    assert pane.search["curve"] == expected["curve"] and pane.search["ranked"] == expected["ranked"]
    genomes = l3.all_genomes(space)
    assert pane.rho == l3.spearman([l3.mlp_proxy(x) for x in genomes], [measure(x) for x in genomes])
    verdicts = [pane.finalists.item(r, 3).text() for r in range(pane.finalists.rowCount())]
    assert verdicts[:3] == [verdicts[0], verdicts[1], "chosen"] and verdicts[0].startswith("rejected: fp16")
    # the slab tab: unfused, t1 and y reuse x's bytes
    rects = {name: (off, size) for name, _, _, off, size in pane.slab_rects}
    assert rects["t1"][0] == 0 and rects["y"][0] == 16384
    pane.fused.setChecked(True)
    dag, bufs, _ = l4.mlp_plan(fused=True)
    assert {n for n, *_ in pane.slab_rects} == {b.id for b in bufs}
    assert "1 launch(es): lt_matmul_relu_bias" in pane.slab_info.text()


def test_the_search_scatter_labels_do_not_run_together(qtbot, make_window):
    """Over about a decade, pyqtgraph labelled every sub-decade tick (overlapping);
    the log axes keep the labels at 1, 2 and 5 times a power of ten."""
    import math

    from kx_gui.widgets.log_axis import LogAxis, kept

    w = make_window("cuda:90")
    pane = w.luminal_pane
    axis = pane.scatter.getAxis("bottom")
    assert isinstance(axis, LogAxis) and axis.logMode
    values = [2 + math.log10(m) for m in range(1, 10)] + [3.0, 3 + math.log10(2)]
    strings = axis.tickStrings(values, 1.0, 1.0)
    labelled = [v for v, s in zip(values, strings) if s]
    assert len(labelled) == 5 and all(kept(v) for v in labelled)
