"""E-graph pane: saturate, step the slider, and check what is drawn and highlighted."""

from __future__ import annotations

from gui_helpers import finished, settled
from kx_core.luminal import egraph as l2
from kx_core.luminal.egraph_layout import forward_map, node_key, roots
from kx_testing import ROOT


def test_stepping_marks_new_nodes_and_the_extraction(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.egraph_pane
    pane.source.setText("(+ (* x y) (* x z))")
    pane.rules.setCurrentText("algebra")
    assert finished(qtbot, pane.saturate())
    snaps = pane.snapshots
    assert pane.slider.maximum() == len(snaps) - 1 and snaps[-1].stop == "saturated"
    final = forward_map(snaps)
    for k, snap in enumerate(snaps):
        pane.slider.setValue(k)
        expected = {node_key(c, n, final) for c, ns in snap.classes.items() for n in ns}
        assert pane.visible == expected  # exactly iteration k's e-nodes are shown
        chosen = {node_key(c, n, final) for c, n in l2.extraction(snap, l2.any_op_cost, roots(snap))}
        assert pane.chosen == chosen
        for key in pane.visible:
            box = pane.node_items[key][0]
            assert (box.brush().color().name() == "#fff59d") == (key in chosen)
    # at the end, the cheapest program is x * (y + z): one '*' and one '+' highlighted
    ops = sorted(key[1][0] for key in pane.chosen if len(key[1]) > 1)
    assert ops == ["*", "+"]
    # the growth plot's iterations are whole numbers (it labelled 0.5, 1.5, ...)
    for side, span in (("bottom", len(snaps) - 1), ("left", 3)):
        axis = pane.growth.getPlotItem().getAxis(side)
        ticks = [v for _, values in axis.tickValues(0, span, 300) for v in values]
        assert ticks and all(float(v).is_integer() for v in ticks), side
    pane.cost.setCurrentText("AST size")  # extracted again on a job
    settled(qtbot, pane)
    assert "AST size" in pane.info.text()


def test_a_large_graph_says_what_it_hides(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.egraph_pane
    pane.source.setText("(+ (+ (+ (+ (+ x0 x1) x2) x3) x4) x5)")
    pane.rules.setCurrentText("comm_assoc")
    assert finished(qtbot, pane.saturate())
    assert pane.snapshots[-1].num_nodes == 608
    assert "showing 400 of 608 e-nodes" in pane.info.text() and "hidden" in pane.info.text()
    assert len(pane.node_items) == 400


def test_egg_programs_and_bad_input(qtbot, make_window):
    w = make_window("cuda:90")
    pane = w.egraph_pane
    pane.source.setText(str(ROOT / "kx_core" / "data" / "egraph" / "matmul_relu_fusion.egg"))
    assert finished(qtbot, pane.saturate()) and "MatMulBiasRelu" in pane.info.text()
    pane.cost.setCurrentText("egglog cost")  # the program's own :cost annotations
    settled(qtbot, pane)
    assert pane.cost.currentText() == "egglog cost"
    assert any(k[1][0] == "MatMulBiasRelu" for k in pane.chosen)
    box = next(b for key, (b, _t) in pane.node_items.items() if key[1][0] == "MatMulBiasRelu")
    box.setSelected(True)
    assert pane.selected[1][0] == "MatMulBiasRelu" and "selected: e-node MatMulBiasRelu" in pane.info.text()
    pane.inline.setChecked(True)
    settled(qtbot, pane)
    assert pane.layout.inlined  # the Input strings are written into labels
    pane.source.setText("(+ a")
    assert not finished(qtbot, pane.saturate()) and "never closed" in pane.info.text()
    assert pane.snapshots  # the last good run stays on screen


def test_a_saturation_that_never_ends_is_stopped(qtbot, make_window, tmp_path):
    """A schedule that never saturates costs the pane its time limit, not the window."""
    import time

    egg = tmp_path / "grow.egg"
    egg.write_text(
        "(datatype Math (Num i64) (Add Math Math))\n(let e (Num 1))\n"
        "(rule ((= x (Num n))) ((Num (+ n 1))))\n"
        "(rule ((= a (Num n)) (= b (Num m))) ((Add a b)))\n"
        "(rule ((= a (Add x y)) (= b (Add z w))) ((Add a b)))\n"
        "(run-schedule (saturate (run)))\n"
    )
    w = make_window("cuda:90")
    pane = w.egraph_pane
    pane.seconds = 2
    pane.source.setText(str(egg))
    started = time.perf_counter()
    job = pane.saturate()
    assert not job.done  # the window's thread is free while it runs
    finished(qtbot, job, 60_000)
    assert time.perf_counter() - started < 60
    assert "ran past 2 s" in pane.info.text() or len(pane.snapshots) > 1


def test_edges_end_at_their_class_with_an_arrowhead(qtbot, make_window):
    """dot draws an edge as a curve that stops where its arrowhead begins (_hdraw_):
    every edge has its head, and the head reaches its class's dashed box."""
    w = make_window("cuda:90")
    pane = w.egraph_pane
    pane.source.setText("(+ (* x y) (* x z))")
    pane.rules.setCurrentText("algebra")
    assert finished(qtbot, pane.saturate())
    edges = pane.layout.edges
    assert edges and all(len(e.head) >= 3 for e in edges)
    boxes = {}
    for n in pane.layout.nodes:
        x0, y0, x1, y1 = boxes.get(n.cid, (1e9, 1e9, -1e9, -1e9))
        boxes[n.cid] = (
            min(x0, n.x - n.w / 2),
            min(y0, n.y - n.h / 2),
            max(x1, n.x + n.w / 2),
            max(y1, n.y + n.h / 2),
        )
    for e in edges:
        x0, y0, x1, y1 = boxes[e.dst]
        tip = min(e.head, key=lambda p: min(abs(p[1] - y0), abs(p[1] - y1)))
        # the head's tip lies on the box the pane draws: 6 pt around the class's e-nodes
        assert x0 - 10 <= tip[0] <= x1 + 10 and y0 - 10 <= tip[1] <= y1 + 10


LARGE = "(+ (+ (+ (+ (+ x0 x1) x2) x3) x4) x5)"  # 608 e-nodes, 400 drawn


def _whole_graph_in_view(pane) -> bool:
    seen = pane.view.mapToScene(pane.view.viewport().rect()).boundingRect()
    return seen.adjusted(-1, -1, 1, 1).contains(pane.scene.itemsBoundingRect())


def test_a_large_graph_opens_fitted_and_fit_brings_it_back(qtbot, make_window):
    """A 400-node e-graph opened zoomed into one corner, with no way to see it whole
    (issue 54): it opens fitted to the view, its class boxes packed so that fitted it is
    readable; after zooming in, the Fit button and View ▸ Fit the E-graph to the View
    (Ctrl+0) show it whole again."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QAction

    w = make_window("cuda:90")
    w.resize(1280, 800)
    assert w.show_pane("egraph")
    pane = w.egraph_pane
    pane.source.setText(LARGE)
    pane.rules.setCurrentText("comm_assoc")
    assert finished(qtbot, pane.saturate())
    qtbot.wait(50)
    assert len(pane.node_items) == 400 and _whole_graph_in_view(pane)
    # whole and readable: dot's layers were a 15,630 x 798 pt strip, drawn at 5% when
    # fitted; its class boxes packed in rows fit at 80% (labels 8 pt at 100%)
    assert pane.layout.packed and "packed in rows" in pane.info.text()
    assert pane.view.transform().m11() > 0.5
    pane.view.scale(4, 4)  # what the wheel does
    assert not _whole_graph_in_view(pane)
    qtbot.mouseClick(pane.fit_button, Qt.MouseButton.LeftButton)
    assert _whole_graph_in_view(pane)
    pane.view.scale(4, 4)
    (fit,) = [a for a in w.findChildren(QAction) if a.shortcut().toString() == "Ctrl+0"]
    fit.trigger()
    assert _whole_graph_in_view(pane)


def test_a_graph_drawn_while_hidden_fits_when_first_shown(qtbot, make_window):
    w = make_window("cuda:90")
    w.resize(1280, 800)
    pane = w.egraph_pane  # built, its dock not shown (the Explore workspace)
    assert not w.docks["egraph"].isVisible()
    pane.source.setText(LARGE)
    pane.rules.setCurrentText("comm_assoc")
    assert finished(qtbot, pane.saturate())
    assert w.show_pane("egraph")
    qtbot.wait(100)
    assert _whole_graph_in_view(pane)
