"""A folder only this user can use: where the warm server's sockets live.

A folder in a shared place (`/tmp/kx-1000`) may have been made first by someone else,
to catch what kx sends there (the job's environment, its pipes). kx makes the folder
itself, mode 0700, and checks it on every use: a real folder (not a symlink), owned by
this user, open to no one else. Anything else is refused, with the reason.
"""

from __future__ import annotations

import os
import stat


class UnsafeFolder(OSError):
    """The folder is not this user's alone; the message says why and what to do."""


def private_dir(path: str) -> str:
    """`path`, made (0700) when missing; raises UnsafeFolder when it exists but is not a
    folder of this user's that no one else can enter."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise UnsafeFolder(f"cannot make {path}: {e.strerror}") from e
    check_private(path)
    return path


def check_private(path: str) -> None:
    """Raise UnsafeFolder unless `path` is a real folder owned by this user, mode 0700."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise UnsafeFolder(f"cannot read {path}: {e.strerror}") from e
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFolder(f"{path} is a symbolic link, not kx's own folder")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFolder(f"{path} is not a folder")
    if st.st_uid != os.getuid():
        raise UnsafeFolder(f"{path} belongs to another user (uid {st.st_uid}): kx will not use it")
    if st.st_mode & 0o077:
        raise UnsafeFolder(
            f"{path} is open to other users (mode {stat.S_IMODE(st.st_mode):o}); "
            f"`chmod 700 {path}` or remove it"
        )
