"""Where the Roofline's text goes, in scene (pixel) coordinates: each label beside its
point (or the ridge it names), inside the view box, crossing no roof, no other label and
not the legend. Labels placed at their points' height ran over the fp32 roof and over
each other, and the ridge label ran off the plot's right edge (autoRange ignores text)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF

# what a candidate position costs per thing it covers: a roof, another label or the
# legend hides what the chart says; a point or a launch-floor tick only a little
HARD, SOFT = 10, 1
FAR = 40.0  # pixels from its point past which a label gets a leader line


def crosses(rect: QRectF, a: QPointF, b: QPointF) -> bool:
    """Whether the segment a-b passes through `rect` (Liang-Barsky clipping)."""
    x0, y0, dx, dy = a.x(), a.y(), b.x() - a.x(), b.y() - a.y()
    lo, hi = 0.0, 1.0
    for p, q in (
        (-dx, x0 - rect.left()),
        (dx, rect.right() - x0),
        (-dy, y0 - rect.top()),
        (dy, rect.bottom() - y0),
    ):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


def inside(rect: QRectF, bounds: QRectF) -> QRectF:
    """`rect` pushed into `bounds` (its top left kept where it is larger)."""
    x = min(max(rect.left(), bounds.left()), bounds.right() - rect.width())
    y = min(max(rect.top(), bounds.top()), bounds.bottom() - rect.height())
    return QRectF(max(x, bounds.left()), max(y, bounds.top()), rect.width(), rect.height())


def candidates(at: QRectF, w: float, h: float, gap: float, ridge: bool = False) -> list[QRectF]:
    """Places for a w x h label beside `at` (its points' box), in the order tried: right,
    below, above, left, the four corners, then farther below and above. A ridge label
    tries below-right first (under its roof, right of the DRAM diagonal), then above-left."""
    cx, cy = at.center().x(), at.center().y()
    right, left = at.right() + gap, at.left() - gap - w
    below, above = at.bottom() + gap, at.top() - gap - h
    sides = [
        (right, cy - h / 2),
        (cx - w / 2, below),
        (cx - w / 2, above),
        (left, cy - h / 2),
    ]
    corners = [(right, below), (right, above), (left, below), (left, above)]
    if ridge:
        corners = [(right, below), (left, above), (right, above), (left, below)]
        sides = corners + sides
    else:
        sides += corners
    farther = []
    for k in range(1, 7):
        farther += [(cx - w / 2, below + k * h), (cx - w / 2, above - k * h)]
        farther += [(right, below + k * h), (right, above - k * h)]
    return [QRectF(x, y, w, h) for x, y in sides + farther]


def far(rect: QRectF, centres: list[QPointF]) -> bool:
    """Whether a label at `rect` is far enough from its points to need leaders."""
    return len(centres) > 1 or any((c - nearest_on(rect, c)).manhattanLength() > FAR for c in centres)


def cost(rect: QRectF, hard_rects, hard_segments, soft_rects, soft_segments, centres=()) -> int:
    score = HARD * sum(rect.intersects(r) for r in hard_rects)
    if centres and far(rect, centres):  # its leaders crossing another label
        for c in centres:
            end = nearest_on(rect, c)
            score += HARD * sum(crosses(r, c, end) for r in hard_rects)
    score += HARD * sum(crosses(rect, a, b) for a, b in hard_segments)
    score += SOFT * sum(rect.intersects(r) for r in soft_rects)
    score += SOFT * sum(crosses(rect, a, b) for a, b in soft_segments)
    return score


def place(
    at: QRectF,
    w: float,
    h: float,
    bounds: QRectF,
    hard_rects: list[QRectF],
    hard_segments: list[tuple[QPointF, QPointF]],
    soft_rects: list[QRectF] = (),
    soft_segments: list[tuple[QPointF, QPointF]] = (),
    gap: float = 4.0,
    ridge: bool = False,
    centres: list[QPointF] = (),
) -> QRectF:
    """The first candidate (pushed inside `bounds`) that covers nothing, else the one that
    covers least."""
    best, best_cost = None, None
    for rect in candidates(at, w, h, gap, ridge):
        rect = inside(rect, bounds)
        c = cost(rect, hard_rects, hard_segments, soft_rects, soft_segments, centres)
        if c == 0:
            return rect
        if best_cost is None or c < best_cost:
            best, best_cost = rect, c
    return best


def nearest_on(rect: QRectF, p: QPointF) -> QPointF:
    """The point of `rect` nearest `p` (where a leader from p meets its label)."""
    return QPointF(min(max(p.x(), rect.left()), rect.right()), min(max(p.y(), rect.top()), rect.bottom()))
