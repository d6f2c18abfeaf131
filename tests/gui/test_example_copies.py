"""The user's copies of the shipped examples: an untouched copy follows a newer kx's
example; an edited one is kept, and only that one is called edited."""

from __future__ import annotations

from kx_gui import example_copies


def test_an_untouched_copy_follows_the_shipped_text_and_an_edited_one_is_kept(tmp_path):
    shipped, copies = tmp_path / "shipped", tmp_path / "copies"
    shipped.mkdir()
    (shipped / "a.py").write_text("v1\n")
    (shipped / "b.py").write_text("b1\n")
    example_copies.refresh(shipped, copies, tmp_path.relative_to(tmp_path))
    a, b = copies / "a.py", copies / "b.py"
    assert a.read_text() == "v1\n" and not example_copies.edited(a, shipped / "a.py", copies)
    b.write_text("my edit\n")  # the user edits b
    (shipped / "a.py").write_text("v2\n")  # a newer kx ships other texts of both
    (shipped / "b.py").write_text("b2\n")
    assert not example_copies.edited(a, shipped / "a.py", copies)  # still as it was made
    example_copies.refresh(shipped, copies, tmp_path.relative_to(tmp_path))
    assert a.read_text() == "v2\n" and not example_copies.edited(a, shipped / "a.py", copies)
    assert b.read_text() == "my edit\n" and example_copies.edited(b, shipped / "b.py", copies)
