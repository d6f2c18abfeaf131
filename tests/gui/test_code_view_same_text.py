"""A stage view given the text it already shows (a compile's first configs, then its
finished result; a rebuild that changed nothing in this stage) keeps its document, scroll
position and cursor, with new decorations; a text someone edited in between is set again."""

from __future__ import annotations

from kx_core.ir.lexers import lexer_for_syntax
from kx_gui.widgets.code_view import CodeView


def test_the_same_text_again_keeps_the_document_and_the_scroll(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    text = "\n".join(f"  %{i} = arith.addi %{i - 1}, %c1 : i32" for i in range(1, 400))
    view.set_content(text, lexer_for_syntax("mlir"))
    qtbot.waitUntil(lambda: view.fully_loaded)
    view.scroll_to_line(300)
    document, scrolled = view.document(), view.verticalScrollBar().value()
    revision = document.revision()
    assert scrolled > 0
    view.set_emphasis({300})
    loaded = []
    view.loaded.connect(lambda: loaded.append(True))
    view.set_content(text, lexer_for_syntax("mlir"))
    assert loaded  # said loaded, as a new text is
    assert view.document().revision() == revision  # not set again
    assert view.verticalScrollBar().value() == scrolled
    assert not view.emphasis  # the decorations are the new content's to set
    assert view.text() == text
    # an edit in between: the same text is set again, whole
    cursor = view.textCursor()
    cursor.insertText("edited ")
    assert view.text() != text
    view.set_content(text, lexer_for_syntax("mlir"))
    qtbot.waitUntil(lambda: view.fully_loaded)
    assert view.text() == text
    # another text: set as before
    view.set_content(text + "\n  tt.return", lexer_for_syntax("mlir"))
    qtbot.waitUntil(lambda: view.fully_loaded)
    assert view.text().endswith("tt.return")


def test_a_text_that_changed_in_a_few_lines_rewrites_only_those(qtbot):
    """A live edit changes a few lines of each stage (issue 51): the view rewrites those,
    so the other lines keep their highlighting and layout (a whole new document made Qt
    shape every visible line again: 20-30 ms of a window stall) and the view stays where
    the user scrolled. Inserted, deleted, changed, appended and prepended lines, and a
    random walk of such edits, each give exactly the new text."""
    import random

    view = CodeView()
    qtbot.addWidget(view)
    view.resize(600, 300)
    view.show()
    mlir = lexer_for_syntax("mlir")
    lines = [f"  %{i} = arith.addi %{i - 1}, %c1 : i32" for i in range(1, 400)]
    view.set_content("\n".join(lines), mlir)
    qtbot.waitUntil(lambda: view.fully_loaded)
    view.scroll_to_line(300)
    view.grab()  # painted: the visible lines are highlighted
    scrolled = view.verticalScrollBar().value()
    first = view.firstVisibleBlock().blockNumber()
    kept = view.document().findBlockByNumber(first + 5)
    highlighted = kept.userState()
    assert highlighted >= 0 and kept.layout().formats()
    lines[first + 2] = "  %x = arith.muli %y, %c2 : i32"
    view.set_content("\n".join(lines), mlir)
    assert view.text() == "\n".join(lines)
    assert view.verticalScrollBar().value() == scrolled
    assert view.document().findBlockByNumber(first + 5).userState() == highlighted  # not lexed again
    assert view.document().findBlockByNumber(first + 2).userState() == -1  # lexed at its next paint
    rng = random.Random(0)
    for step in range(400):
        at = rng.randrange(len(lines) + 1)
        kind = step % 5
        if kind == 0:
            lines[at:at] = [f"  tt.inserted {step}"] * rng.randint(1, 3)
        elif kind == 1 and len(lines) > 1:
            del lines[min(at, len(lines) - 1) : at + rng.randint(1, 3)]
        elif kind == 2:
            lines[min(at, len(lines) - 1)] = f"  tt.changed {step}"
        elif kind == 3:
            lines.append("" if step % 2 else f"  tt.appended {step}")
        else:
            lines.insert(0, f"  tt.prepended {step}")
        view.set_content("\n".join(lines), mlir)
        assert view.toPlainText() == "\n".join(lines), step
