"""`sneakycode rewind`: checkpoints taken by the real agent loop (`-p` against the scripted server) put back
what run_command changed, and the conversation too."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli

ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
BINARY = bytes(range(256)) * 4 + b"\r\n\r\nno newline at the end"
# Deletes and rewrites tracked files, creates files and a folder, writes an ignored file.
DESTRUCTIVE = (
    "rm a.txt && printf 'rewritten' > src/b.py && echo made > created.txt && mkdir -p newdir/deep && "
    "echo x > newdir/deep/y.txt && echo generated > build/gen.txt && rm data.bin"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


@pytest.fixture
def repo(ws: Path) -> Path:
    (ws / "a.txt").write_bytes(b"alpha\r\nline two\n")
    (ws / "src").mkdir()
    (ws / "src" / "b.py").write_text("print('b')\n")
    (ws / "src" / "b.py").chmod(0o755)
    (ws / "c.txt").write_text("untouched by the agent\n")
    (ws / "data.bin").write_bytes(BINARY)
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "cache.txt").write_text("ignored\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=ws, check=True)
    subprocess.run([*git, "add", "-A"], cwd=ws, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=ws, check=True)
    return ws


def headless(server: ScriptedServer, ws: Path, task: str, *flags: str) -> CliResult:
    return run_cli(
        "-p", task, "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws), "--yes",
        *flags, env=ENV,
    )


def rewind(ws: Path, *flags: str) -> CliResult:
    return run_cli("rewind", "--workspace", str(ws), *flags)


def tree_state(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def git_dir_hashes(ws: Path) -> dict[str, str]:
    return {
        str(p.relative_to(ws)): hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode)
        for p in sorted((ws / ".git").rglob("*")) if p.is_file()
    }


def run_destructive(server: ScriptedServer, ws: Path) -> CliResult:
    server.add_steps([call("run_command", command=DESTRUCTIVE), call("finish", message="done")])
    result = headless(server, ws, "Clean up")
    assert result.code == 0, result.stderr
    assert not (ws / "a.txt").exists() and (ws / "created.txt").exists()
    return result


def test_rewind_restores_what_run_command_deleted_and_rewrote(server: ScriptedServer, repo: Path) -> None:
    before = {k: v for k, v in tree_state(repo).items() if not k.startswith(".git/")}
    git_before = git_dir_hashes(repo)
    run_destructive(server, repo)

    result = rewind(repo)

    assert result.code == 0, result.stderr
    after = {k: v for k, v in tree_state(repo).items() if not k.startswith(".git/")}
    after.pop("build/gen.txt")  # ignored: in no snapshot, so never deleted
    assert after == before  # byte-identical: CRLF, binary, no trailing newline
    assert (repo / "src" / "b.py").stat().st_mode & 0o111
    assert not (repo / "newdir").exists() and not (repo / "created.txt").exists()
    assert (repo / "build" / "gen.txt").read_text() == "generated\n"
    assert git_dir_hashes(repo) == git_before
    assert "recreated a.txt" in result.stdout and "removed created.txt" in result.stdout


def test_list_shows_the_turn_and_the_files_it_changed(server: ScriptedServer, repo: Path) -> None:
    run_destructive(server, repo)
    result = rewind(repo, "--list")
    assert result.code == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.strip().startswith("1 "))
    assert "5:" in row and "a.txt" in row and "created.txt" in row
    assert "build/gen.txt" not in result.stdout


def test_a_file_changed_by_someone_else_is_kept_unless_forced(server: ScriptedServer, repo: Path) -> None:
    run_destructive(server, repo)
    (repo / "src" / "b.py").write_text("the user's fix\n")
    (repo / "c.txt").write_text("the user's edit\n")

    kept = rewind(repo, "--files-only")

    assert kept.code == 1
    assert "src/b.py: changed since" in kept.stderr and "c.txt: changed since" in kept.stderr
    assert (repo / "src" / "b.py").read_text() == "the user's fix\n"
    assert (repo / "c.txt").read_text() == "the user's edit\n"
    assert (repo / "a.txt").read_bytes() == b"alpha\r\nline two\n"  # the rest was rewound

    forced = rewind(repo, "--files-only", "--force")

    assert forced.code == 0, forced.stderr
    assert (repo / "src" / "b.py").read_text() == "print('b')\n"
    assert (repo / "c.txt").read_text() == "untouched by the agent\n"


def test_conversation_rewind_lets_continue_resume_from_before_the_turn(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([
        call("write_file", file_path="one.txt", content="1\n"),
        call("run_command", command="echo 2 > two.txt"),
        call("finish", message="done"),
    ])
    assert headless(server, repo, "Make two files").code == 0

    result = rewind(repo, "--to", "2")

    assert result.code == 0, result.stderr
    assert (repo / "one.txt").exists() and not (repo / "two.txt").exists()
    server.add_steps([call("finish", message="resumed")])
    resumed = headless(server, repo, "And now?", "--continue")
    assert resumed.code == 0, resumed.stderr
    sent = server.chat_requests[-1]["messages"]
    contents = [json.dumps(m) for m in sent]
    assert any("one.txt" in c for c in contents) and not any("two.txt" in c for c in contents)
    assert sent[-1]["content"].endswith("]\n\nAnd now?")  # after the resumed note
    listing = rewind(repo, "--list")
    assert "two.txt" not in listing.stdout  # what the old turn 2 did went with the conversation
    assert "rewound to before this turn" in listing.stdout


def test_files_only_keeps_the_conversation(server: ScriptedServer, repo: Path) -> None:
    run_destructive(server, repo)
    assert rewind(repo, "--files-only").code == 0
    server.add_steps([call("finish", message="again")])
    assert headless(server, repo, "What did you do?", "--continue").code == 0
    sent = json.dumps(server.chat_requests[-1]["messages"])
    assert "created.txt" in sent


def test_nothing_to_rewind_without_a_session(repo: Path) -> None:
    result = rewind(repo)
    assert result.code == 0 and "Nothing to rewind" in result.stdout


# ---- hardening round two -------------------------------------------------------------------------------

OUTSIDE_TEXT = b"OUTSIDE SECRET\n"
RACE_SECONDS = 8.0  # rewinds run until this much time has passed (at least two), however slow the machine
# The swapping runs in its own process, so it races rewind in parallel. It puts back the link to outside
# whenever a rewind removed it (or moved a folder there), so every round is raced.
SWAPPER = """
import os, sys, time
sub, aside, link, outside = sys.argv[1:5]
strays = 0

def stray(path):
    global strays
    strays += 1
    os.rename(path, f"{path}.stray{strays}")

print("swapping", flush=True)
while True:
    try:
        if not os.path.islink(link):
            if os.path.lexists(link):
                stray(link)
            os.symlink(outside, link)
        os.rename(sub, aside)
        try:
            os.rename(link, sub)
            time.sleep(0.0005)
            os.rename(sub, link)
        except OSError:
            pass
        while True:
            try:
                os.rename(aside, sub)
                break
            except OSError:
                stray(sub)  # rewind made sub/ while it was away: move that one out of the way
    except OSError:
        pass
"""


def files_below(root: Path) -> dict[str, bytes | str]:
    """Every file (its bytes) and folder (`dir`) below root, not following links."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs:
            found[os.path.relpath(os.path.join(folder, name), root)] = "dir"
        for name in names:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = path.read_bytes() if not path.is_symlink() else "link"
    return found


@contextmanager
def swapping(ws: Path, outside: Path) -> Iterator[None]:
    """Swap ws/sub for a link to `outside` and back, in a loop, until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(ws / "sub"), str(ws / ".aside"), str(ws / ".link"), str(outside)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "swapping"
        yield
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_rewind_force_never_writes_or_removes_outside_while_a_folder_is_swapped(
    server: ScriptedServer, repo: Path, tmp_path: Path
) -> None:
    """Hardening round two, class 2: `sneakycode rewind --force` checked containment first and wrote by path
    later, so a process swapping sub/ for a link to outside got files written and removed outside."""
    names = [f"f{index}.txt" for index in range(12)]
    created = [f"new{index}.txt" for index in range(6)]
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    for name in [*names, *created, "deep/y.txt"]:
        (outside / name).write_bytes(OUTSIDE_TEXT)
    (repo / "sub" / "deep").mkdir(parents=True)
    for name in [*names, "deep/y.txt"]:
        (repo / "sub" / name).write_text("inside\n")
    with (repo / ".gitignore").open("a") as fh:
        fh.write(".aside\n.link*\nsub.stray*\n")  # the swapper's own names: no rewind touches them
    outside_before = files_below(outside)
    server.add_steps([call("run_command", command="printf 'turn one' > a.txt"), call("finish", message="done")])
    assert headless(server, repo, "Change a.txt").code == 0
    real_sub = os.open(repo / "sub", os.O_RDONLY | os.O_DIRECTORY)  # wherever the swapping moves it

    def put(name: str, data: bytes) -> None:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644, dir_fd=real_sub)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)

    rounds, not_restored = 0, 0
    try:
        with swapping(repo, outside):
            deadline = time.monotonic() + RACE_SECONDS
            while rounds < 2 or time.monotonic() < deadline:
                # Every file of sub/ to be restored, removed or recreated by the rewind, and one outside sub/.
                for index, name in enumerate(names):
                    if index % 2:
                        put(name, b"changed\n")
                    elif os.path.lexists(f"/proc/self/fd/{real_sub}/{name}"):
                        os.unlink(name, dir_fd=real_sub)
                for name in created:
                    put(name, b"created\n")
                (repo / "a.txt").write_text("changed again\n")

                result = rewind(repo, "--files-only", "--force")

                rounds += 1
                assert result.code in (0, 1), result.stderr
                assert "Traceback" not in result.stderr + result.stdout
                assert files_below(outside) == outside_before, f"round {rounds} reached outside"
                # The rest of the rewind went on: the file outside the swapped folder is back.
                assert (repo / "a.txt").read_bytes() == b"alpha\r\nline two\n", result.stderr + result.stdout
                not_restored += result.stderr.count("no longer a folder")
    finally:
        os.close(real_sub)
    assert files_below(outside) == outside_before
    print(f"{rounds} rewinds raced; {not_restored} paths stopped at a swapped folder")


NESTED_REPOSITORIES = {
    "without a commit": "git init -q sub",
    "with a commit": "git init -q sub && echo x > sub/x && git -C sub add x && "
    "git -C sub -c user.name=t -c user.email=t@t commit -qm x",
}


@pytest.mark.parametrize("command", NESTED_REPOSITORIES.values(), ids=list(NESTED_REPOSITORIES))
def test_a_nested_repository_made_by_a_command_leaves_checkpoints_on(
    server: ScriptedServer, repo: Path, command: str
) -> None:
    """Hardening round two, class 3: a command running `git init sub` made the next snapshot fail, which
    turned checkpoints off for the rest of the session."""
    server.add_steps([
        call("run_command", command=command),
        call("run_command", command="printf 'turn two' > a.txt && rm c.txt && echo t > two.txt"),
        call("finish", message="done"),
    ])

    run = headless(server, repo, "Make a nested repository, then change files")

    assert run.code == 0, run.stderr
    assert "checkpoints are off" not in run.stderr
    assert "not snapshotted" in run.stderr and "sub (a nested git repository)" in run.stderr
    listing = rewind(repo, "--list")
    turn_two = next(line for line in listing.stdout.splitlines() if line.strip().startswith("2 "))
    assert "a.txt" in turn_two and "c.txt" in turn_two and "two.txt" in turn_two

    back_to_two = rewind(repo, "--to", "2", "--files-only")

    assert back_to_two.code == 0, back_to_two.stderr
    assert (repo / "a.txt").read_bytes() == b"alpha\r\nline two\n"
    assert (repo / "c.txt").read_text() == "untouched by the agent\n"
    assert not (repo / "two.txt").exists()
    assert "sub: left as it is, in no snapshot: a nested git repository" in back_to_two.stdout
    # Back to before the turn that made it: the nested repository is not "created after the checkpoint".
    back_to_one = rewind(repo, "--to", "1", "--files-only")
    assert back_to_one.code == 0, back_to_one.stderr
    assert (repo / "sub" / ".git").is_dir()
    assert "removed sub" not in back_to_one.stdout


def test_a_submodule_is_left_out_with_a_note_and_the_rest_is_rewound(
    server: ScriptedServer, repo: Path, tmp_path: Path
) -> None:
    """Hardening round two, class 3: a submodule (a `.git` file, a gitlink in the user's index) is skipped
    with a note, never a reason to stop snapshotting the rest."""
    origin = tmp_path / "origin"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
    subprocess.run([*git, "init", "-q", str(origin)], check=True)
    (origin / "lib.py").write_text("lib\n")
    subprocess.run([*git, "-C", str(origin), "add", "lib.py"], check=True)
    subprocess.run([*git, "-C", str(origin), "commit", "-qm", "lib"], check=True)
    subprocess.run([*git, "submodule", "add", "-q", str(origin), "vendor/lib"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "submodule"], cwd=repo, check=True)
    assert (repo / "vendor" / "lib" / ".git").is_file()
    server.add_steps([
        call("run_command", command="rm c.txt && echo local > vendor/lib/local.txt"),
        call("finish", message="done"),
    ])

    run = headless(server, repo, "Change files")
    result = rewind(repo, "--files-only")

    assert run.code == 0, run.stderr
    assert "checkpoints are off" not in run.stderr and "vendor/lib (a nested git repository)" in run.stderr
    assert result.code == 0, result.stderr
    assert (repo / "c.txt").read_text() == "untouched by the agent\n"
    assert (repo / "vendor" / "lib" / "local.txt").read_text() == "local\n"  # inside it: left as it is
    assert "vendor/lib: left as it is, in no snapshot: a nested git repository" in result.stdout


def as_unprivileged(argv: list[str]) -> list[str]:
    """`argv` run without the power to read every file: as is for a user, and for root in a user namespace
    (bwrap) where it keeps its uid's files but loses the capabilities that read past permission bits."""
    if os.geteuid() != 0:
        return argv
    bwrap = shutil.which("bwrap")
    prefix = [bwrap or "bwrap", "--unshare-user", "--uid", "1000", "--gid", "1000", "--bind", "/", "/",
              "--dev", "/dev", "--proc", "/proc"]
    if bwrap is None or subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root, where chmod 000 does not stop reads, and bwrap cannot drop that power here")
    return [*prefix, *argv]


def run_unprivileged(*argv: str) -> CliResult:
    proc = subprocess.run(
        as_unprivileged([sys.executable, "-m", "sneakycode.faces.cli.main", *argv]),
        env={**os.environ, **ENV}, capture_output=True, text=True, timeout=60,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def test_an_unreadable_file_is_left_out_with_a_note_and_the_rest_is_rewound(
    server: ScriptedServer, repo: Path
) -> None:
    """Hardening round two, class 3: a file that cannot be read (chmod 000) made every snapshot fail, so
    checkpoints went off; it is skipped with a note, and rewind neither deletes nor rewrites it. As root,
    whom permission bits do not stop, the runs go through a user namespace without that power."""
    secret = repo / "secret.env"
    secret.write_text("KEY=1\n")
    secret.chmod(0)
    server.add_steps([
        call("write_file", file_path="one.txt", content="1\n"),
        call("delete_file", file_path="c.txt"),
        call("finish", message="done"),
    ])
    base = ["--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(repo), "--yes"]

    run = run_unprivileged("-p", "Change files", *base)
    result = run_unprivileged("rewind", "--workspace", str(repo), "--to", "1", "--files-only")

    assert run.code == 0, run.stderr
    assert "checkpoints are off" not in run.stderr and "secret.env (unreadable" in run.stderr
    assert result.code == 0, result.stderr
    assert not (repo / "one.txt").exists()
    assert (repo / "c.txt").read_text() == "untouched by the agent\n"
    assert secret.read_text() == "KEY=1\n" and secret.stat().st_mode & 0o777 == 0
    assert "secret.env: left as it is, in no snapshot: unreadable" in result.stdout


@pytest.mark.parametrize("force", [True, False], ids=["forced", "not forced"])
def test_a_rewind_that_leaves_a_path_exits_non_zero_naming_it(server: ScriptedServer, repo: Path, force: bool) -> None:
    """Hardening round three, class 11: src/b.py was deleted and src/ made unreadable after the run; `git
    status` skipped what it could not look at, so the snapshot still held src/b.py and `rewind --force`
    said the files were as at the checkpoint and exited 0, with src/b.py gone. Now the folder is left out
    of the snapshot, the rewind exits 1 (a failure, faces/shared/exit_codes.py) and names each path it left. As root,
    whom permission bits do not stop, the runs go through a user namespace without that power."""
    server.add_steps([call("write_file", file_path="one.txt", content="1\n"), call("finish", message="done")])
    base = ["--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(repo), "--yes"]
    assert run_unprivileged("-p", "Add a file", *base).code == 0
    (repo / "src" / "b.py").unlink()
    (repo / "src").chmod(0)
    try:
        result = run_unprivileged("rewind", "--workspace", str(repo), "--files-only", *(["--force"] if force else []))
    finally:
        (repo / "src").chmod(0o755)

    assert result.code == 1, result.stdout
    assert not (repo / "one.txt").exists()  # the rest was rewound
    assert "is unreadable and in no snapshot" not in result.stdout + result.stderr
    left = result.stderr.split("NOT restored", 1)[1]
    assert "src/b.py: the checkpoint holds it, not put back: unreadable" in left
    assert ("src: left as it is, in no snapshot now" in left) == force
