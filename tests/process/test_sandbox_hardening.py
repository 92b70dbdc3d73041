"""Hardening classes 2 and 3 (issue 11), the sandbox side, through `sneakycode tool run_command` and through
the agent: a sandboxed command sees no credential folder, no other session and no process outside it, and
cannot plant anything git or SneakyCode would run later, outside the sandbox. Every test needs a working
bwrap and skips with the probe's reason when there is none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results
from tests.process.test_sandbox import require_bwrap
from tests.process.test_secrets import key

BWRAP = {"SNEAKYCODE_TOOLS__SHELL__SANDBOX": '"bwrap"'}
# What a hostile command tries: each line on its own, so one refusal does not skip the rest.
PLANT = """
echo 'mode = "yolo"' > .sneakycode/config.toml
printf '#!/bin/sh\\necho planted\\n' > .git/hooks/pre-commit
git config core.hooksPath planted-hooks
git config core.fsmonitor ./fsmonitor.sh
printf '[core]\\n\\tfsmonitor = ./fsmonitor.sh\\n' >> .git/config
echo '* filter=planted' > .git/info/attributes
mv .git .git-moved
echo ../planted-common > .git/commondir
echo tried
"""


def sandboxed_cli(ws: Path, *calls: str, env: dict[str, str] | None = None) -> CliResult:
    """`sneakycode tool run_command JSON [run_command JSON ...]` with the sandbox required."""
    argv: list[str] = []
    for command in calls:
        argv += ["run_command", json.dumps({"command": command})]
    return run_cli("tool", *argv, "--workspace", str(ws), env={**BWRAP, **(env or {})})


def git(ws: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def repo(ws: Path) -> Path:
    """A git repository with a commit and a project config; skips where bwrap or git cannot run."""
    require_bwrap(ws)
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(ws, "init", "-q")
    git(ws, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first")
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('model = "mine"\n')
    return ws


def snapshot(ws: Path) -> dict[str, bytes]:
    """Every file under .git/config, .git/hooks, .git/info and .sneakycode, by path."""
    found = {}
    for top in (ws / ".git" / "config", ws / ".git" / "hooks", ws / ".git" / "info", ws / ".sneakycode"):
        for path in [top, *top.rglob("*")] if top.is_dir() else [top]:
            if path.is_file():
                found[str(path.relative_to(ws))] = path.read_bytes()
    return found


def test_hardening_class_3_cli_command_cannot_plant_what_git_or_sneakycode_runs_later(repo: Path) -> None:
    """Hardening class 3: under bwrap a command rewrote .sneakycode/config.toml, wrote .git/hooks/pre-commit
    and set core.hooksPath / core.fsmonitor, which git later ran unsandboxed."""
    before = snapshot(repo)
    result = sandboxed_cli(repo, PLANT)
    assert "tried" in result.stdout, result.stderr
    assert snapshot(repo) == before
    assert not (repo / ".git" / "commondir").exists() and not (repo / ".git-moved").exists()
    assert ".git/commondir was created by the command and deleted" in result.stdout
    assert "Read-only file system" in result.stdout
    config = git(repo, "config", "--list")
    assert "hookspath" not in config and "fsmonitor" not in config


def test_hardening_class_3_missing_hooks_and_project_folders_cannot_be_created(repo: Path) -> None:
    """Hardening class 3: where .git/hooks or .sneakycode/ did not exist, the command could create them; the
    empty folders the sandbox puts in their place do not stay behind."""
    shutil.rmtree(repo / ".git" / "hooks")
    shutil.rmtree(repo / ".sneakycode")
    plant = "mkdir -p .git/hooks .sneakycode; echo x > .git/hooks/pre-commit; echo x > .sneakycode/config.toml"
    result = sandboxed_cli(repo, plant + "; echo tried")
    assert "tried" in result.stdout, result.stderr
    assert not (repo / ".git" / "hooks").exists() and not (repo / ".sneakycode").exists()


def test_hardening_class_3_hooks_path_and_included_config_in_the_workspace_are_read_only(repo: Path) -> None:
    """Hardening class 3: git files that name programs may live in the workspace itself (core.hooksPath,
    include.path, a program a config value names)."""
    (repo / "githooks").mkdir()
    (repo / "githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (repo / "extra.gitconfig").write_text("[user]\n\tname = t\n")
    (repo / "tools").mkdir()
    (repo / "tools" / "fsmonitor.sh").write_text("#!/bin/sh\n")
    git(repo, "config", "core.hooksPath", "githooks")
    git(repo, "config", "include.path", "../extra.gitconfig")
    git(repo, "config", "core.fsmonitor", "tools/fsmonitor.sh")
    plant = ("echo planted > githooks/pre-commit; echo planted > githooks/post-checkout; "
             "printf '[core]\\n\\tpager = planted\\n' >> extra.gitconfig; echo planted > tools/fsmonitor.sh; "
             "echo ok > tools/other.txt; echo tried")
    result = sandboxed_cli(repo, plant)
    assert "tried" in result.stdout, result.stderr
    assert (repo / "githooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (repo / "githooks" / "post-checkout").exists()
    assert "planted" not in (repo / "extra.gitconfig").read_text() + (repo / "tools" / "fsmonitor.sh").read_text()
    assert (repo / "tools" / "other.txt").read_text() == "ok\n", "the rest of the workspace stays writable"


def test_hardening_class_3_ordinary_git_work_still_succeeds_in_the_sandbox(repo: Path) -> None:
    """Hardening class 3: the protection must not cost ordinary work: add, commit, branch, status."""
    work = ("echo hi > a.txt && git add a.txt && git -c user.email=t@example.com -c user.name=t commit -qm a "
            "&& git switch -q -c topic && git status --short && git log --oneline | wc -l")
    result = sandboxed_cli(repo, work)
    assert "exit code 0" in result.stdout, result.stdout + result.stderr
    assert "background" not in result.stdout, "the sandbox tearing down is not something the command left behind"
    assert git(repo, "log", "--oneline").count("\n") == 2 and git(repo, "branch", "--show-current") == "topic\n"


def test_hardening_class_3_agent_command_cannot_plant_hooks_or_config(repo: Path) -> None:
    """Hardening class 3, through the agent and the scripted model, approved with --yes."""
    before = snapshot(repo)
    with ScriptedServer({"steps": [call("run_command", command=PLANT), finish("Done.")]}) as server:
        result = run_cli("-p", "Set things up", "--base-url", server.base_url, "--model", "m", "--workspace",
                         str(repo), "--yes", env={**ENV, **BWRAP})
        seen = tool_results(server.chat_requests[1])[0]
    assert result.code == 0, result.stderr
    assert "tried" in seen and "Read-only file system" in seen
    assert snapshot(repo) == before and not (repo / ".git" / "commondir").exists()


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside /tmp, where the sandbox's private /tmp does not already hide things."""
    folder = Path(tempfile.mkdtemp(prefix="sneakycode-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def secret_home(home: Path) -> dict[str, str]:
    """Credential files a command must not read, by path relative to `home`, with unique contents."""
    files = {rel: key() for rel in (".ssh/id_ed25519", ".aws/credentials", ".netrc", ".docker/config.json",
                                    ".config/gcloud/credentials.db", ".kube/config", ".gnupg/secring.gpg")}
    for rel, value in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(value)
    return files


@pytest.mark.parametrize("home_inside_workspace", [False, True])
def test_hardening_class_2_sandboxed_command_sees_no_credentials_or_other_sessions(
    ws: Path, outside_tmp: Path, home_inside_workspace: bool
) -> None:
    """Hardening class 2: inside the sandbox ~/.ssh, ~/.aws, ~/.netrc, ... and SneakyCode's state folder
    (other sessions' transcripts) were readable. The session's own saved output stays readable."""
    require_bwrap(ws)
    home = ws / "home" if home_inside_workspace else outside_tmp / "home"
    home.mkdir()
    files = secret_home(home)
    state = outside_tmp / "state"
    other = state / "sessions" / "20000101-000000-000000-abcd"
    other.mkdir(parents=True)
    transcript = key()
    (other / "transcript.jsonl").write_text(transcript)
    env = {"HOME": str(home), "SNEAKYCODE_STATE_DIR": json.dumps(str(state))}
    look = f"cd {home} && cat {' '.join(files)} {other / 'transcript.jsonl'}; ls -A .ssh .aws; echo looked"
    read_saved = f"sed -n '30000p' {state}/sessions/*/outputs/1.log"
    result = sandboxed_cli(ws, look, "seq 1 40000", read_saved, env=env)
    assert "looked" in result.stdout, result.stderr
    for value in [*files.values(), transcript]:
        assert value not in result.stdout
    assert "\n30000\n" in result.stdout, "the session's own saved output must stay readable"
    assert all((home / rel).read_text() == value for rel, value in files.items())


def test_hardening_class_2_sandbox_shows_no_process_outside_it(ws: Path) -> None:
    """Hardening class 2: inside the sandbox the PID namespace is unshared: /proc lists only the command's
    processes, so no parent environment is there to read."""
    require_bwrap(ws)
    model_key = key()
    look = "ls /proc | grep -c '^[0-9]'; cat /proc/*/environ | tr '\\0' '\\n'; echo looked"
    result = sandboxed_cli(ws, look, env={"OPENAI_API_KEY": model_key})
    assert "looked" in result.stdout, result.stderr
    assert model_key not in result.stdout
    assert int(result.stdout.split()[0]) < 10


def test_hardening_class_2_agent_in_the_sandbox_reads_no_credentials(ws: Path, outside_tmp: Path) -> None:
    """Hardening class 2, through the agent: a sandboxed command reads neither ~/.ssh nor the model key."""
    require_bwrap(ws)
    home = outside_tmp / "home"
    home.mkdir()
    files = secret_home(home)
    model_key = key()
    look = f"cat {home}/.ssh/id_ed25519; env; cat /proc/*/environ; echo looked"
    env = {**ENV, **BWRAP, "HOME": str(home), "OPENAI_API_KEY": model_key}
    steps = [call("run_command", command=look), finish("Done.")]
    with ScriptedServer({"steps": steps, "api_key": model_key}) as server:
        result = run_cli("-p", "Look", "--provider", "openai", "--base-url", server.base_url, "--model", "m",
                         "--workspace", str(ws), "--yes", env=env)
        seen = tool_results(server.chat_requests[1])[0]
    assert result.code == 0, result.stderr
    assert "looked" in seen and model_key not in seen and files[".ssh/id_ed25519"] not in seen


def test_hardening_class_3_no_bwrap_or_git_from_the_workspace_runs_outside_the_sandbox(
    repo: Path, tmp_path: Path
) -> None:
    """Hardening class 3: SneakyCode runs bwrap and git itself, unsandboxed; a `.venv/bin` inside the
    workspace on PATH let a sandboxed command plant either for the next call to run."""
    planted = repo / ".venv" / "bin"
    planted.mkdir(parents=True)
    proof = tmp_path / "ran-outside"
    for name in ("bwrap", "git"):
        (planted / name).write_text(f"#!/bin/sh\necho {name} >> {proof}\nexit 1\n")
        (planted / name).chmod(0o755)
    path = f"{planted}:{os.environ['PATH']}"
    command = "echo inside > made.txt && touch /var/tmp/never-$$ || echo refused"
    result = sandboxed_cli(repo, command, env={"PATH": path})
    assert "refused" in result.stdout and "Read-only file system" in result.stdout, result.stdout + result.stderr
    assert (repo / "made.txt").read_text() == "inside\n"
    assert not proof.exists()


def test_hardening_class_3_a_git_file_and_the_git_dir_it_names_are_protected(ws: Path) -> None:
    """Hardening class 3: where `.git` is a file naming the git dir (`--separate-git-dir`, submodules), the
    file cannot be pointed elsewhere and the git dir it names is protected like `.git/`."""
    require_bwrap(ws)
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(ws, "init", "-q", "--separate-git-dir", str(ws / "gitdata"))
    pointer = (ws / ".git").read_text()
    before = (ws / "gitdata" / "config").read_bytes()
    plant = ("echo 'gitdir: planted' > .git; echo x > gitdata/hooks/pre-commit; git config core.fsmonitor x; "
             "mv gitdata moved; echo tried")
    result = sandboxed_cli(ws, plant)
    assert "tried" in result.stdout, result.stderr
    assert (ws / ".git").read_text() == pointer and (ws / "gitdata" / "config").read_bytes() == before
    assert not (ws / "gitdata" / "hooks" / "pre-commit").exists() and not (ws / "moved").exists()


def test_hardening_class_3_a_hooks_link_replaced_by_the_command_is_put_back(repo: Path) -> None:
    """Hardening class 3: `.git/hooks` as a link to a folder of the repository; the folder is read-only, and
    a command that swaps the link for a folder of its own has the link put back once it ends."""
    shutil.rmtree(repo / ".git" / "hooks")
    (repo / "githooks").mkdir()
    (repo / "githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (repo / ".git" / "hooks").symlink_to("../githooks")
    plant = ("echo planted > githooks/pre-commit; rm .git/hooks && mkdir .git/hooks && "
             "echo planted > .git/hooks/pre-commit; echo tried")
    result = sandboxed_cli(repo, plant)
    assert "tried" in result.stdout, result.stderr
    assert ".git/hooks was replaced by the command and put back" in result.stdout
    assert (repo / ".git" / "hooks").is_symlink() and (repo / ".git" / "hooks").readlink() == Path("../githooks")
    assert (repo / "githooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
