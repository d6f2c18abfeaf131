"""Python highlighting for the editable Source pane (pygments, whole-file lexing).

An edited document cannot use CodeView's lazy per-line formats (they would not follow
the edit), so the source uses a QSyntaxHighlighter. It lexes the whole file once per
edit (a kernel file is small) so that multi-line strings are right, and rehighlights
the other lines shortly after an edit that changed them.
"""

from __future__ import annotations

from pygments.lexers import PythonLexer
from PySide6.QtCore import QTimer
from PySide6.QtGui import QSyntaxHighlighter, QTextDocument

from kx_gui.widgets.token_styles import char_format

# Above this size each line is lexed on its own (fast, but multi-line strings may be off).
_WHOLE_FILE_LIMIT = 300_000


class PythonHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._lexer = PythonLexer(stripnl=False, ensurenl=False)
        self._revision = -1
        self._lines: list[list[tuple[int, int, object]]] = []
        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.setInterval(250)
        self._refresh.timeout.connect(self.rehighlight)

    def set_language(self, path: str) -> None:
        """C++ for a .cpp/.cc/.cxx/.h/.hpp file (a CPU kernel), Python otherwise."""
        from pygments.lexers import CppLexer

        from kx_core.cpu.targets import CPP_FILES

        cpp = path.endswith(CPP_FILES)
        self._lexer = (CppLexer if cpp else PythonLexer)(stripnl=False, ensurenl=False)
        self._revision = -1
        self.rehighlight()

    def _relex(self) -> None:
        doc = self.document()
        text = doc.toPlainText()
        old = self._lines
        lines: list[list[tuple[int, int, object]]] = [[]]
        col = 0
        for token, value in self._lexer.get_tokens(text):
            fmt = char_format(token)
            parts = value.split("\n")
            for i, part in enumerate(parts):
                if i:
                    lines.append([])
                    col = 0
                n = len(part.encode("utf-16-le")) // 2
                if fmt is not None and n:
                    lines[-1].append((col, n, fmt))
                col += n
        self._lines = lines
        self._revision = doc.revision()
        if old and len(old) == len(lines) and old != lines:
            self._refresh.start()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt's name
        doc = self.document()
        if len(text) > _WHOLE_FILE_LIMIT or doc.characterCount() > _WHOLE_FILE_LIMIT:
            col = 0
            for token, value in self._lexer.get_tokens(text):
                n = len(value.encode("utf-16-le")) // 2
                fmt = char_format(token)
                if fmt is not None:
                    self.setFormat(col, n, fmt)
                col += n
            return
        # setPlainText clears and fills the document without a new revision: the lexing
        # of the cleared, empty document looked current (no colours until the first edit)
        if doc.revision() != self._revision or len(self._lines) != doc.blockCount():
            self._relex()
        number = self.currentBlock().blockNumber()
        if number < len(self._lines):
            for start, length, fmt in self._lines[number]:
                self.setFormat(start, length, fmt)
