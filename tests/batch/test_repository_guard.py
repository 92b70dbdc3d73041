"""`sneakycode batch` against code that tries to make git run a program of its choosing later, outside the
sandbox: through the CLI's main, real bubblewrap, real git worktrees and clones, and a plain `git status` run
in the task copies afterwards, as a user inspecting them would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.batch.scenario import done, git, make_repo, results, write_tasks
from tests.conftest import run_main
from tests.process.test_sandbox import require_bwrap

# What the planted program does when git runs it: append a line to the marker, which lies outside every
# task copy. Inside the sandbox that folder is not writable (or hidden under its private /tmp), so a line
# in the marker means git ran the program unsandboxed.
EVIL = """#!/bin/sh
echo "ran: $0 $* in $PWD" >> {marker}
"""
# Every way a sandboxed command could make git run a program later: (a) repository config (core.fsmonitor,
# core.hooksPath, diff.external, a pager) written through git and directly, in config and config.worktree;
# (b) the `.git` entry itself replaced by one pointing at a repository the command made (worktree: the
# gitfile; clone: the folder moved away); (c) hooks planted in the git dir; a `commondir` that redirects
# the clone's configuration; (d) repositories git enters from the copy: one of the command's making added
# to the index (`git add evil`), and the empty folder of a submodule given a `.git`. Each line may fail
# (that is the point); the script always exits 0.
ATTACK = """#!/bin/sh
here=$PWD
cat > evil.sh <<'EOF'
{evil}EOF
chmod +x evil.sh
git init -q evil 2>/dev/null
git -C evil -c user.name=m -c user.email=m@example.com commit -q --allow-empty -m nested
git -C evil config core.fsmonitor "$here/evil.sh"
cp evil.sh evil/.git/hooks/pre-commit
git add evil
cp -r evil/.git vendor/.git
git config core.fsmonitor "$here/evil.sh"
git config core.hooksPath "$here/hooks"
printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n\\thooksPath = %s/hooks\\n\\tpager = %s/evil.sh\\n' \
    "$here" "$here" "$here" >> .git/config
printf '[diff]\\n\\texternal = %s/evil.sh\\n' "$here" >> .git/config
printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' "$here" >> .git/config.worktree
mkdir -p hooks .git/hooks
for hook in pre-commit post-commit post-checkout post-index-change reference-transaction; do
    cp evil.sh "hooks/$hook"; cp evil.sh ".git/hooks/$hook"
done
printf '%s/evil/.git\\n' "$here" > .git/commondir
mv .git .git-moved || rm -f .git
printf 'gitdir: %s/evil/.git\\n' "$here" > .git
echo attacked {step}
exit 0
"""
IDENTITY = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@example.com", "GIT_COMMITTER_NAME": "u",
            "GIT_COMMITTER_EMAIL": "u@example.com"}  # fmt: skip


def _attack(step: str, marker: Path) -> str:
    return ATTACK.format(evil=EVIL.format(marker=marker), step=step)


def _agent_runs(command: str) -> list[dict[str, Any]]:
    """The model's script: run `command` with run_command (the agent's own sandboxed step), then stop."""
    call = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}
    return [call, done(), done()]


def _user_inspects(copy: Path) -> None:
    """What a user does in a task copy after the batch: plain git, their own environment, no flags."""
    env = {**os.environ, **IDENTITY}
    for argv in (["git", "status"], ["git", "diff"], ["git", "log", "-1"], ["git", "add", "b.txt"],
                 ["git", "commit", "-qm", "inspect"], ["git", "checkout", "-q", "HEAD~1"]):  # fmt: skip
        subprocess.run(argv, cwd=copy, env=env, capture_output=True, timeout=60, check=False)


def test_setup_agent_and_test_cannot_plant_a_program_git_runs_later(tmp_path: Path) -> None:
    """Hardening round two, class 1: a batch's setup, the agent's commands and the `test` (which runs what
    the model wrote) all run under the repository guard, in a worktree and in a clone: whatever they write
    into `.git`, neither batch's own git calls (the diff) nor a user's plain `git status`, `git commit` or
    `git checkout` in the task copy afterwards runs a program they chose."""
    require_bwrap(tmp_path)
    marker = tmp_path / "ran-unsandboxed"
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    tasks = []
    with ScriptedServer(_agent_runs("sh attack-agent.sh")) as wt_server, \
            ScriptedServer(_agent_runs("sh attack-agent.sh")) as clone_server:  # fmt: skip
        for step in ("setup", "agent", "test"):
            (repo / f"attack-{step}.sh").write_text(_attack(step, marker), encoding="utf-8")
        git(repo, "add", "-A")
        # A submodule the copies do not check out: its folder is empty, and git enters it once it holds a .git.
        (repo / ".gitmodules").write_text('[submodule "vendor"]\n\tpath = vendor\n\turl = ./vendor\n')
        git(repo, "update-index", "--add", "--cacheinfo", f"160000,{git(repo, 'rev-parse', 'HEAD').strip()},vendor")
        git(repo, "add", ".gitmodules")
        git(repo, "commit", "-qm", "attack scripts and a submodule")
        for task_id, source, server in (("worktree", str(repo), wt_server),
                                        ("clone", f"file://{repo}", clone_server)):  # fmt: skip
            tasks.append({"id": task_id, "repo": source, "prompt": "p", "setup": "sh attack-setup.sh",
                          "test": "sh attack-test.sh && echo b > b.txt", "base_url": server.base_url,
                          "model": "m"})  # fmt: skip
        out = tmp_path / "out"
        run = run_main("batch", str(write_tasks(tmp_path / "tasks.jsonl", tasks)), "--out", str(out),
                       "--workers", "2", timeout=240)  # fmt: skip
        agent_results = [m for s in (wt_server, clone_server) for r in s.chat_requests
                         for m in r["messages"] if m["role"] == "tool"]  # fmt: skip
    assert run.code == 0, run.stderr
    lines = {line["id"]: line for line in results(out)}
    assert not marker.exists(), marker.read_text()  # batch's own git calls ran nothing planted
    for task_id in ("worktree", "clone"):
        line = lines[task_id]
        assert line["outcome"] == "passed", line
        assert "attacked test" in line["verdict"]["output"], line  # the test did run its attack
        # The diff is the copy's own: its new files, from the repository batch made, not the planted one.
        assert {"evil.sh", "hooks/pre-commit"} <= set(line["files_changed"]), line
        copy = out / "tasks" / task_id
        _user_inspects(copy)
        assert not marker.exists(), (task_id, marker.read_text())
    assert any("attacked agent" in str(m["content"]) for m in agent_results)  # the agent's command ran too
    # The worktree still points where batch made it; the clone's configuration is the one it was cloned with.
    gitfile = (out / "tasks" / "worktree" / ".git").read_text(encoding="utf-8")
    assert gitfile.strip() == f"gitdir: {repo / '.git' / 'worktrees' / 'worktree'}"
    config = (out / "tasks" / "clone" / ".git" / "config").read_text(encoding="utf-8")
    assert "evil" not in config and "hooksPath" not in config
    assert not (out / "tasks" / "clone" / ".git" / "commondir").exists()
    assert any("commondir" in note for note in lines["clone"]["notes"]), lines["clone"]
    assert any(note.startswith("test: vendor/.git was created") for note in lines["worktree"]["notes"])
    assert any("evil/.git is a repository the command added" in note for note in lines["clone"]["notes"])


# Unsandboxed (--no-sandbox), a step can change anything: the `.git` gitfile now names a repository of its
# making, and the shared configuration and attributes name programs for an fsmonitor, hooks, a textconv
# driver and an external diff. It runs no git itself afterwards, so any run of the program is batch's.
UNSANDBOXED_PLANT = """
here=$PWD
printf '#!/bin/sh\\necho "ran: $0 $*" >> {marker}\\n' > evil.sh
chmod +x evil.sh
common=$(git rev-parse --path-format=absolute --git-common-dir)
printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n\\thooksPath = %s\\n[diff]\\n\\texternal = %s/evil.sh\\n' \\
    "$here" "$here" "$here" >> "$common/config"
printf '[diff "planted"]\\n\\ttextconv = %s/evil.sh\\n' "$here" >> "$common/config"
echo '* diff=planted' > .gitattributes
for hook in pre-commit post-index-change reference-transaction; do cp evil.sh "$hook"; done
mkdir -p evil/.git && cp -r "$common/objects" "$common/refs" "$common/HEAD" evil/.git/
printf '[core]\\n\\tfsmonitor = %s/evil.sh\\n' "$here" > evil/.git/config
printf 'gitdir: %s/evil/.git\\n' "$here" > .git
echo new > new.txt
"""


def test_without_the_sandbox_batch_still_runs_no_program_a_step_planted(tmp_path: Path) -> None:
    """Hardening round two, class 1: with --no-sandbox the guard is off, and a setup step pointed the copy's
    `.git` at a repository of its own and named programs in the shared git configuration. batch's own git
    calls afterwards (the diff) run none of them, read the git dir batch made, and the result says the
    copy's `.git` was replaced."""
    marker = tmp_path / "ran-by-batch"
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n", "plant.sh": UNSANDBOXED_PLANT.format(marker=marker)})
    with ScriptedServer([done(), done()]) as server:
        tasks = write_tasks(tmp_path / "tasks.jsonl", [
            {"id": "t", "repo": str(repo), "prompt": "p", "setup": "sh plant.sh", "base_url": server.base_url,
             "model": "m"}])  # fmt: skip
        out = tmp_path / "out"
        run = run_main("batch", str(tasks), "--out", str(out), "--no-sandbox", timeout=120)
    assert run.code == 0, run.stderr
    assert not marker.exists(), marker.read_text()
    line = results(out)[0]
    assert line["outcome"] == "passed", line
    assert {"new.txt", "evil.sh", ".gitattributes"} <= set(line["files_changed"]), line
    assert "+new" in line["diff"] and "Binary" not in line["diff"]  # the plain diff, no textconv, no driver
    assert any(".git was replaced after the copy was made" in note for note in line["notes"]), line
