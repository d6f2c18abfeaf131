"""A code view for large texts: line numbers, lazy highlighting, link bands, marks.

- Highlighting is lazy: only the blocks about to be painted are lexed (pygments, line
  by line) and given formats through their QTextLayout, so a 50,000-line PTX costs
  what its visible 40 lines cost. (QSyntaxHighlighter would lex every line up front.)
- Long texts load in chunks: the first screenful is set at once and painted, the rest
  is appended from the event loop, so the first paint does not wait for all of it.
- Bands (a background colour per line) and the emphasised link lines are painted for
  the visible lines only.
- Gutter marks carry a colour and a message shown on hover (diagnostics).
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
    QTextLayout,
)
from PySide6.QtWidgets import QInputDialog, QPlainTextEdit, QTextEdit, QToolTip, QWidget

from kx_gui.widgets.token_styles import LINK_BORDER, LINK_COLOR, line_formats

# Seconds of lexing one paint may spend; what is left is highlighted a moment later.
HIGHLIGHT_BUDGET_S = 0.008


class _TurnBudget:
    """The lexing time one turn of the event loop may spend, shared by every view: Qt
    paints all the views an edit changed in one event (the window's backing store), so a
    budget per view was spent once per view in the same pause of the UI thread (two stage
    views and the editor: 16-24 ms of one 50 ms stall, bench_live_recompile). The first
    paint of a turn sets the deadline; a zero timer, which runs once the turn's events
    are done, clears it."""

    def __init__(self) -> None:
        self.deadline: float | None = None

    def until(self) -> float:
        if self.deadline is None:
            self.deadline = time.perf_counter() + HIGHLIGHT_BUDGET_S
            QTimer.singleShot(0, self._clear)
        return self.deadline

    def _clear(self) -> None:
        self.deadline = None


_TURN = _TurnBudget()
# Lines set at once before the rest of a long text is appended in chunks.
FIRST_CHUNK_LINES = 2000
CHUNK_LINES = 8000


HEAT_COLOR = QColor(229, 57, 53, 150)  # translucent red: hot lines under the numbers


def _no_band(line: int) -> None:
    return None


def monospace_font():
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


class _Gutter(QWidget):
    def __init__(self, view: CodeView) -> None:
        super().__init__(view)
        self.view = view
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        self.view.paint_gutter(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        line = self.view.line_at_y(int(event.position().y()))
        tip = self.view.tip_at(line)
        if tip:
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QToolTip.hideText()


_CHAR_MARK = QTextFormat.Property.UserProperty + 7  # a format range that is a char mark


class CodeView(QPlainTextEdit):
    """Plain text with line numbers; 1-based line numbers in every public method."""

    line_clicked = Signal(int)  # the user clicked or moved the cursor to a line
    loaded = Signal()  # the whole text is in the document

    def __init__(self, parent: QWidget | None = None, read_only: bool = True) -> None:
        super().__init__(parent)
        self.setReadOnly(read_only)
        self.setFont(monospace_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTextInteractionFlags(
            self.textInteractionFlags() | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.lexer = None
        self.band_of = _no_band
        self.char_marks: dict[int, list[tuple[int, int]]] = {}
        self.char_mark_color = QColor("#ffab91")
        self.emphasis: set[int] = set()
        self.disputed: set[int] = set()
        self.marks: dict[int, tuple[QColor, str]] = {}
        # gutter-only marks (no underline), under the diagnostics' marks: remarks
        self.gutter_marks: dict[int, tuple[QColor, str]] = {}
        # profile heat: line -> (share of the hottest line, 0..1, hover text), a bar in the gutter
        self.heat: dict[int, tuple[float, str]] = {}
        self.line_labels: tuple[int, ...] = ()  # the gutter's number for each line (display filters)
        self._content_id = 0
        self._text = ""  # the text set_content last showed (whole, before chunking)
        self._text_revision = -1  # the document's revision once that text was all in it
        self._pending: list[str] = []
        self._scroll_target: int | None = None
        self._last_line = 0
        # line (as shown) -> one line of help for it, or None (StagePane sets it for PTX/SASS)
        self.hover_help = None
        self._loading = False
        self._gutter = _Gutter(self)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._cursor_moved)
        self._chunk_timer = QTimer(self)
        self._chunk_timer.setSingleShot(True)
        self._chunk_timer.timeout.connect(self._append_chunk)
        # owned by the view, so a pending repaint dies with it
        self._more_highlight = QTimer(self)
        self._more_highlight.setSingleShot(True)
        self._more_highlight.timeout.connect(lambda: self.viewport().update())
        self._update_gutter_width()

    # ------------------------------------------------------------ content

    def set_content(self, text: str, lexer=None, line_labels: tuple[int, ...] = ()) -> None:
        """Show `text`, highlighted with a pygments lexer (None: plain). `line_labels`: the
        number the gutter shows for each line (a filtered text's full-text numbers)."""
        same = (
            text == self._text
            and self.document().revision() == self._text_revision  # nobody edited it since
            and type(lexer) is type(self.lexer)
            and tuple(line_labels) == self.line_labels
            and not self._pending
        )
        unedited = self.document().revision() == self._text_revision and not self._pending
        # the lines' formats stay valid where the lexer is the same and no character marks
        # were on them (lexing is per line: a line's formats depend on its text alone)
        if type(lexer) is not type(self.lexer) or self.char_marks:
            self._content_id += 1
        self.line_labels = tuple(line_labels)
        self.lexer = lexer
        self.band_of, self.emphasis, self.marks, self.char_marks = _no_band, set(), {}, {}
        self.disputed = set()
        self.gutter_marks, self.heat = {}, {}
        self._scroll_target = None
        if same:
            # the same text again (a rebuild that changed nothing in this stage; a
            # compile's first configs, then its finished result): the document, its
            # scroll position and its cursor stay; only the decorations are new, drawn
            # lazily (the formats are per content id)
            self._gutter.update()
            self.viewport().update()
            self.loaded.emit()
            return
        lines = text.split("\n")
        if unedited and self._replace_changed_lines(self._text.split("\n"), lines):
            self._text = text
            self._text_revision = self.document().revision()
            self.loaded.emit()
            return
        self._content_id += 1
        self._text = text
        self._chunk_timer.stop()
        # new text puts the cursor on line 1: that is not the user choosing line 1
        self._loading = True
        try:
            if len(lines) > FIRST_CHUNK_LINES * 2:
                self._pending = lines[FIRST_CHUNK_LINES:]
                self.setPlainText("\n".join(lines[:FIRST_CHUNK_LINES]))
                self._chunk_timer.start(0)
            else:
                self._pending = []
                self.setPlainText(text)
        finally:
            self._loading = False
        self._last_line = self.current_line()
        if not self._pending:
            self._text_revision = self.document().revision()
            self.loaded.emit()

    def _replace_changed_lines(self, old: list[str], new: list[str]) -> bool:
        """Turn the document's `old` lines into `new` by rewriting only what lies between
        their common first and last lines; False (nothing done) where that is most of the
        text. A live edit changes a few lines of each stage: rewriting all of them made Qt
        lay out and shape every visible line again (20-30 ms of one window stall,
        bench_live_recompile), and put the view back at its first line."""
        if len(new) > FIRST_CHUNK_LINES * 2 or not old:
            return False
        shortest = min(len(old), len(new))
        head = 0
        while head < shortest and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        if max(len(old), len(new)) - head - tail > max(len(old), len(new)) // 2:
            return False
        old_text, new_text = "\n".join(old), "\n".join(new)
        # characters in common at the start (the head lines with the newline after them,
        # where both texts go on) and at the end (the tail lines with the newline before)
        start = sum(len(line) + 1 for line in old[:head]) - (head == len(old) or head == len(new))
        start = max(start, 0)
        end = sum(len(line) + 1 for line in old[len(old) - tail :]) - (tail == len(old) or tail == len(new))
        end = max(min(end, min(len(old_text), len(new_text)) - start), 0)
        inserted = new_text[start : len(new_text) - end]
        if start == len(old_text) - end and not inserted:
            return True  # the same lines
        doc = self.document()
        cursor = QTextCursor(doc)
        bar = self.verticalScrollBar().value()
        self._loading = True
        try:
            cursor.setPosition(start)
            cursor.setPosition(len(old_text) - end, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(inserted)
        finally:
            self._loading = False
        # the rewritten lines are lexed again; the others keep their formats and layouts
        block = doc.findBlock(start)
        while block.isValid() and block.position() <= start + len(inserted):
            block.setUserState(-1)
            block = block.next()
        self.verticalScrollBar().setValue(bar)
        self._last_line = self.current_line()
        return True

    @property
    def fully_loaded(self) -> bool:
        return not self._pending

    def _append_chunk(self) -> None:
        chunk, self._pending = self._pending[:CHUNK_LINES], self._pending[CHUNK_LINES:]
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        # keep the user's own cursor and scroll position where they are
        bar = self.verticalScrollBar().value()
        cursor.insertText("\n" + "\n".join(chunk))
        self.verticalScrollBar().setValue(bar)
        if self._pending:
            self._chunk_timer.start(0)
        else:
            self._text_revision = self.document().revision()
            self.loaded.emit()
            if self._scroll_target is not None:
                self.scroll_to_line(self._scroll_target)

    def text(self) -> str:
        """The whole text, including what has not been appended yet."""
        body = self.toPlainText()
        return body + ("\n" + "\n".join(self._pending) if self._pending else "")

    # ------------------------------------------------------------ lines

    def set_bands(self, band_of) -> None:
        """Background colours: a dict line -> QColor, or a function line -> QColor | None
        (asked only for the lines being painted)."""
        self.band_of = band_of.get if isinstance(band_of, dict) else band_of
        self.viewport().update()

    def set_char_marks(self, marks: dict[int, list[tuple[int, int]]], color: QColor | None = None) -> None:
        """Character spans to mark (intraline diff): line -> [(start, length)]."""
        self.char_marks = marks
        if color is not None:
            self.char_mark_color = color
        self._content_id += 1  # formats are cached per content: recompute them
        self.viewport().update()

    def set_emphasis(self, lines: set[int] | tuple[int, ...], disputed=()) -> None:
        """The linked lines; `disputed` among them are drawn hatched: linked because the
        debug info names the selected line, though kx followed their operation elsewhere."""
        self.emphasis = set(lines)
        self.disputed = set(disputed) & self.emphasis
        self.viewport().update()

    def set_marks(self, marks: dict[int, tuple[QColor, str]]) -> None:
        """Gutter marks and wavy underlines: line -> (colour, message)."""
        self.marks = marks
        selections = []
        for line, (color, _message) in marks.items():
            block = self.document().findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            sel = QTextEdit.ExtraSelection()
            sel.format.setUnderlineStyle(sel.format.UnderlineStyle.WaveUnderline)
            sel.format.setUnderlineColor(color)
            cursor = QTextCursor(block)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = cursor
            selections.append(sel)
        self.setExtraSelections(selections)
        self._gutter.update()

    def set_gutter_marks(self, marks: dict[int, tuple[QColor, str]]) -> None:
        """Marks drawn in the gutter only, with their message on hover: line -> (colour, message)."""
        self.gutter_marks = marks
        self._gutter.update()

    def set_heat(self, heat: dict[int, tuple[float, str]]) -> None:
        """Hot lines: line -> (fraction of the hottest, hover text), drawn as gutter bars."""
        self.heat = heat
        self._gutter.update()

    def tip_at(self, line: int) -> str | None:
        """A line's hover text: its mark's message, then its heat."""
        mark = self.mark_at(line)
        heat = self.heat.get(line)
        parts = [p for p in (mark[1] if mark else None, heat[1] if heat else None) if p]
        return "\n".join(parts) or None

    def mark_at(self, line: int) -> tuple[QColor, str] | None:
        """A line's mark: a diagnostic's first, else a gutter-only one."""
        return self.marks.get(line) or self.gutter_marks.get(line)

    def scroll_to_line(self, line: int) -> None:
        """Bring a line to the middle of the view without moving the cursor."""
        if line > self.document().blockCount():
            self._scroll_target = line  # still loading: scroll once it is there
            return
        self._scroll_target = None
        visible = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
        self.verticalScrollBar().setValue(max(0, line - 1 - visible // 2))

    def go_to_line(self, line: int) -> None:
        """Move the cursor to a line and show it."""
        block = self.document().findBlockByNumber(max(0, line - 1))
        if block.isValid():
            self.setTextCursor(QTextCursor(block))
            self.scroll_to_line(line)

    def current_line(self) -> int:
        return self.textCursor().blockNumber() + 1

    def visible_lines(self) -> range:
        first = self.firstVisibleBlock().blockNumber() + 1
        visible = self.viewport().height() // max(1, self.fontMetrics().height())
        return range(first, first + visible + 1)

    def line_at_y(self, y: int) -> int:
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid():
            bottom = top + self.blockBoundingRect(block).height()
            if top <= y < bottom:
                return block.blockNumber() + 1
            block, top = block.next(), bottom
        return -1

    def _cursor_moved(self) -> None:
        if self._loading:
            return
        line = self.current_line()
        if line != self._last_line:
            self._last_line = line
            if self.hasFocus():
                self.line_clicked.emit(line)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not self.textCursor().hasSelection():
            self._last_line = self.current_line()
            self.line_clicked.emit(self._last_line)

    def viewportEvent(self, event) -> bool:  # noqa: N802
        # Hover help through the viewport's ToolTip event, not mouseMoveEvent: a button-less
        # mouse move reaches the view only with mouse tracking on, which a real mouse in the
        # first-user run showed was off (the help never appeared); Qt sends ToolTip events
        # after the hover delay whatever the tracking.
        if event.type() == QEvent.Type.ToolTip:
            tip = self.tip_for_text_line(self.line_at_y(event.pos().y()))
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def tip_for_text_line(self, line: int) -> str | None:
        """What hovering a line of the text shows: its mark's note (a diagnostic, or where
        kx followed an operation), then its instruction's help."""
        mark = self.mark_at(line)
        return "\n".join(t for t in (mark[1] if mark else None, self.help_at(line)) if t) or None

    def help_at(self, line: int) -> str | None:
        """The hover help of a line (a PTX or SASS instruction's: set `hover_help`)."""
        return self.hover_help(line) if self.hover_help and line else None

    # ------------------------------------------------------------ painting

    def _visible_blocks(self):
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        height = self.viewport().height()
        while block.isValid():
            geom = self.blockBoundingGeometry(block).translated(offset)
            if geom.top() > height:
                break
            if block.isVisible():
                yield block, geom
            block = block.next()

    def _highlight(self, block: QTextBlock) -> None:
        if (self.lexer is None and not self.char_marks) or block.userState() == self._content_id:
            return
        block.setUserState(self._content_id)
        formats = []
        if self.lexer is not None:
            try:
                formats = line_formats(self.lexer, block.text())
            except Exception:  # noqa: BLE001 - a lexer failure leaves the line plain, never breaks painting
                formats = []
        else:
            # an editor's own highlighter (the Source pane's) put its colours in the same
            # layout: kept, less marks of before (replacing them left the line plain)
            formats = [r for r in block.layout().formats() if not r.format.hasProperty(_CHAR_MARK)]
        for start, length in self.char_marks.get(block.blockNumber() + 1, ()):
            r = QTextLayout.FormatRange()
            r.start, r.length = start, length
            r.format = QTextCharFormat()
            r.format.setBackground(self.char_mark_color)
            r.format.setProperty(_CHAR_MARK, True)
            formats.append(r)
        block.layout().setFormats(formats)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self.viewport())
        width = self.viewport().width()
        # Lexing is the costly part of a first paint (long MLIR lines, ~0.5 ms each): do at
        # most HIGHLIGHT_BUDGET_S of it per turn of the event loop, whichever views paint
        # in it, paint the rest plain for now and come back for it on the next turn, so
        # the UI thread never stalls.
        deadline = _TURN.until()
        more = False
        for block, geom in self._visible_blocks():
            if time.perf_counter() < deadline:
                self._highlight(block)
            elif block.userState() != self._content_id:
                more = True
            line = block.blockNumber() + 1
            rect = QRect(0, int(geom.top()), width, int(geom.height()))
            if line in self.disputed:
                painter.fillRect(rect, QBrush(LINK_COLOR, Qt.BrushStyle.BDiagPattern))
                painter.setPen(LINK_BORDER)
                painter.drawLine(rect.topLeft(), rect.topRight())
                painter.drawLine(rect.bottomLeft(), rect.bottomRight())
            elif line in self.emphasis:
                painter.fillRect(rect, LINK_COLOR)
                painter.setPen(LINK_BORDER)
                painter.drawLine(rect.topLeft(), rect.topRight())
                painter.drawLine(rect.bottomLeft(), rect.bottomRight())
            elif (band := self.band_of(line)) is not None:
                painter.fillRect(rect, band)
        painter.end()
        super().paintEvent(event)
        if more:
            self._more_highlight.start(0)

    # ------------------------------------------------------------ gutter

    def gutter_width(self) -> int:
        last = self.line_labels[-1] if self.line_labels else self.document().blockCount() + len(self._pending)
        digits = len(str(max(1, last)))
        return 14 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_gutter_width(self, *_args) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        painter.fillRect(event.rect(), QColor("#f3f3f3"))
        painter.setFont(self.font())
        height = self.fontMetrics().height()
        current = self.current_line()
        for block, geom in self._visible_blocks():
            line = block.blockNumber() + 1
            top = int(geom.top())
            if line in self.heat:  # a bar as long as the line's share of the hottest line
                share = self.heat[line][0]
                width = max(3, int(share * (self._gutter.width() - 2)))
                painter.fillRect(1, top + 1, width, height - 2, HEAT_COLOR)
            mark = self.mark_at(line)
            if mark:
                painter.setBrush(mark[0])
                painter.setPen(Qt.PenStyle.NoPen)
                painter.drawEllipse(3, top + height // 2 - 4, 8, 8)
            painter.setPen(QColor("#202020") if line == current else QColor("#909090"))
            label = self.line_labels[line - 1] if line <= len(self.line_labels) else line
            painter.drawText(
                0, top, self._gutter.width() - 4, height, Qt.AlignmentFlag.AlignRight, str(label)
            )
        painter.end()


def ask_and_go_to_line(parent, view: CodeView) -> int | None:
    """Ctrl+G: ask for a line number and move the view's cursor there; the line (the pane
    links it to the other stages, as a click does), or None when cancelled."""
    count = view.document().blockCount()
    line, ok = QInputDialog.getInt(parent, "Go to line", f"Line (1-{count}):", view.current_line(), 1, count)
    if not ok:
        return None
    view.go_to_line(line)
    return line


def indent_after(line: str) -> str:
    """The indentation a new line after `line` starts with, as Python editors give it:
    the line's own, one level (4 spaces) more after a block opener (`def f():`), one
    less after a `return`/`pass`/`break`/`continue`/`raise`."""
    stripped = line.strip()
    indent = line[: len(line) - len(line.lstrip())]
    code = stripped.split("#", 1)[0].rstrip()
    if code.endswith(":"):
        return indent + "    "
    if code.split(" ", 1)[0] in ("return", "pass", "break", "continue", "raise") and len(indent) >= 4:
        return indent[:-4]
    return indent


class EditorView(CodeView):
    """An editable CodeView (the Source pane): Enter keeps the indentation (indent_after),
    Tab inserts four spaces."""

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        from PySide6.QtCore import Qt

        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not mods & ~Qt.KeyboardModifier.KeypadModifier:
            cursor = self.textCursor()
            before = cursor.block().text()[: cursor.positionInBlock()]
            cursor.insertText("\n" + indent_after(before))
            self.setTextCursor(cursor)
            return
        if key == Qt.Key.Key_Tab and not mods:
            self.textCursor().insertText("    ")
            return
        super().keyPressEvent(event)
