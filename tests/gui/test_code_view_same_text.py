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
