"""Re-create /.realfiles/ (git-ignored) from the public-file corpus manifest.

Every manifest entry names the upstream repository, the commit, and under "extract" the
trees or files it needs (a path in that repository -> a folder or file under the repo
root). This script reads them with `git show`/`git cat-file` from the bare mirrors that
the session's `fetch` tool leaves under /work/.mirror/<owner>+<name>/repo, so a later
session can rebuild the corpus after fetching the same repositories:

    python benchmarks/real_files/extract.py [--mirrors /work/.mirror] [--clean] [--check]

An entry whose upstream repository is too large to mirror names the mirror it was read
from in "mirror" (e.g. triton-lang/triton's tutorials come from a fork that carries the
same upstream commit). Nothing is downloaded here; a missing mirror is reported with the
repository to fetch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # the kx checkout
MANIFEST = HERE / "manifest.json"


def git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True).stdout


def mirror_dir(mirrors: Path, repo: str) -> Path:
    """The git directory of `repo`'s mirror: `fetch` leaves most as bare repositories in
    <owner>+<name>/repo, some as a clone whose git directory is repo/.git (tkipf/pygcn)."""
    base = mirrors / repo.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def plan(manifest: list[dict]) -> dict[tuple[str, str], list[tuple[str, str, tuple[str, ...]]]]:
    """(mirror repo, commit) -> unique [(path, dest, excludes)]."""
    jobs: dict[tuple[str, str], list[tuple[str, str, tuple[str, ...]]]] = {}
    for e in manifest:
        key = (e.get("mirror") or e["repo"], e["commit"])
        for x in e["extract"]:
            item = (x["path"].rstrip("/"), x["dest"].rstrip("/"), tuple(x.get("exclude", ())))
            if item not in jobs.setdefault(key, []):
                jobs[key].append(item)
    return jobs


def extract_tree(gitdir: Path, commit: str, path: str, dest: Path, excludes: tuple[str, ...]) -> int:
    kind = git(gitdir, "cat-file", "-t", f"{commit}:{path}").decode().strip()
    if kind == "blob":
        entries = [(path, dest)]
    else:
        out = git(gitdir, "ls-tree", "-r", "-z", "--full-tree", commit, "--", path)
        entries = []
        for rec in out.split(b"\0"):
            if not rec:
                continue
            meta, name = rec.decode().split("\t", 1)
            mode, typ, _sha = meta.split()
            if typ != "blob" or mode == "120000":
                continue
            if any(name == ex or name.startswith(ex.rstrip("/") + "/") for ex in excludes):
                continue
            entries.append((name, dest / os.path.relpath(name, path)))
    # one `git cat-file --batch` process for every blob of this tree
    proc = subprocess.Popen(
        ["git", f"--git-dir={gitdir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin and proc.stdout
    for name, target in entries:
        proc.stdin.write(f"{commit}:{name}\n".encode())
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # trailing newline
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    proc.stdin.close()
    proc.wait()
    return len(entries)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("KX_MIRRORS", "/work/.mirror"))
    ap.add_argument("--root", default=str(ROOT), help="kx checkout to write .realfiles/ into")
    ap.add_argument("--manifest", default=str(MANIFEST))
    ap.add_argument("--clean", action="store_true", help="remove .realfiles/ first")
    ap.add_argument("--check", action="store_true", help="only check that every mirror and commit is present")
    args = ap.parse_args(argv)
    root, mirrors = Path(args.root), Path(args.mirrors)
    manifest = json.loads(Path(args.manifest).read_text())
    jobs = plan(manifest)

    missing = []
    for repo, commit in jobs:
        gd = mirror_dir(mirrors, repo)
        if not gd.is_dir():
            missing.append(f"{repo}: no mirror at {gd} (fetch github:{repo})")
            continue
        try:
            git(gd, "cat-file", "-e", f"{commit}^{{commit}}")
        except subprocess.CalledProcessError:
            missing.append(f"{repo}: commit {commit} not in {gd}")
    if missing:
        print("\n".join(missing), file=sys.stderr)
        return 1
    if args.check:
        print(f"ok: {len(jobs)} (repo, commit) pairs, {len(manifest)} entries")
        return 0

    if args.clean:
        shutil.rmtree(root / ".realfiles", ignore_errors=True)
    total = 0
    for (repo, commit), items in jobs.items():
        gd = mirror_dir(mirrors, repo)
        for path, dest, excludes in items:
            if not dest.startswith(".realfiles/"):
                raise SystemExit(f"refusing to write outside .realfiles/: {dest}")
            n = extract_tree(gd, commit, path, root / dest, excludes)
            total += n
            print(f"{repo}@{commit[:10]} {path} -> {dest} ({n} files)")
    for e in manifest:  # every run file must now exist (drivers live in the checkout)
        base = root if e["run"].startswith(".realfiles/") else ROOT
        if not (base / e["run"]).is_file():
            print(f"warning: {e['id']}: run file {e['run']} missing", file=sys.stderr)
    print(f"{total} files written under {root / '.realfiles'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
