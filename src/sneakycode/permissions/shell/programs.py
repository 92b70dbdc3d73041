"""Ordinary programs the policy knows more about than their name.

- Global options before a subcommand (`git -C . push`, `docker --context x rm`, `npm --prefix . publish`):
  deny and ask rules also see the command without them, so `run_command(git push)` stops every such form.
  An option the table does not know makes the match uncertain (MAYBE), never a miss.
- Options that make a program run another program chosen on the command line (`rg --pre`, `git -c`,
  `git rebase --exec`, `sed`'s `e` command): never approved by an allow rule; where the command is visible,
  deny and ask rules look inside it.
- Runners of project tools (`uv run`, `npx`, `poetry run`, `bundle exec` ...): deny and ask rules look at the
  command they run; allow rules match them as written (`uv run:*` approves what uv runs).
"""

from __future__ import annotations

from sneakycode.permissions.shell.options import Options, skip_options
from sneakycode.permissions.shell.sedscript import sed_effects
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import Inner, command_name, joined


def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


GIT = Options("pP", "Cc", _flags("--paginate", "--no-pager", "--no-replace-objects", "--bare", "--literal-pathspecs",
              "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--no-lazy-fetch",
              "--no-advice"), _flags("--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
              "--attr-source", "--list-cmds"), long_optional=_flags("--exec-path"))
GLOBAL_OPTIONS: dict[str, Options] = {
    "git": GIT,
    "docker": Options("D", "cHl", _flags("--debug", "--tls", "--tlsverify"),
                      _flags("--config", "--context", "--host", "--log-level", "--tlscacert", "--tlscert", "--tlskey")),
    "kubectl": Options("", "nsv", _flags("--disable-compression", "--insecure-skip-tls-verify",
                       "--match-server-version",
                       "--warnings-as-errors"),
                       _flags("--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority",
                              "--client-certificate", "--client-key", "--cluster", "--context", "--kubeconfig",
                              "--log-flush-frequency", "--namespace", "--password", "--profile", "--profile-output",
                              "--request-timeout", "--server", "--tls-server-name", "--token", "--user", "--username",
                              "--v", "--vmodule")),
    "npm": Options("gsqdy", "Cw", _flags("--global", "--silent", "--quiet", "--yes", "--no-yes", "--verbose",
                   "--workspaces", "--include-workspace-root", "--dry-run", "--force", "--offline", "--prefer-offline",
                   "--prefer-online", "--ignore-scripts", "--json", "--no-audit", "--no-fund", "--legacy-peer-deps"),
                   _flags("--prefix", "--workspace", "--userconfig", "--globalconfig", "--cache", "--registry",
                          "--loglevel", "--location", "--otp")),
    "pnpm": Options("wrs", "CF", _flags("--workspace-root", "--recursive", "--silent", "--stream", "--aggregate-output",
                    "--parallel"), _flags("--dir", "--filter", "--filter-prod", "--reporter", "--loglevel")),
    "yarn": Options("s", "", _flags("--silent", "--verbose", "--offline", "--non-interactive"), _flags("--cwd")),
    "cargo": Options("vq", "CZ", _flags("--verbose", "--quiet", "--frozen", "--locked", "--offline"),
                     _flags("--color", "--config")),
    "go": Options("", "C"),
}
# Options after which the subcommand does not run (`git --help push` shows a manual page).
HELP = ("-h", "--help", "--version")
STOPS: dict[str, tuple[str, ...]] = {
    "git": (*HELP, "-v", "--html-path", "--man-path", "--info-path", "--list-cmds"),
    "docker": (*HELP, "-v"),
    "npm": (*HELP, "-v"),
    "pnpm": (*HELP, "-v"),
    "yarn": (*HELP, "-v"),
    "cargo": (*HELP, "-V", "--list", "--explain"),
}


def subcommand_forms(words: tuple[Word, ...]) -> list[tuple[tuple[Word, ...], bool]]:
    """The command as written and, for a program with known global options, without them; `certain` is
    False for a form that assumes what an unknown option takes."""
    forms = [(words, True)]
    if not words or not words[0].literal:
        return forms
    name = command_name(words[0])
    spec = GLOBAL_OPTIONS.get(name)
    if spec is None:
        return forms
    first = 2 if name == "cargo" and len(words) > 1 and words[1].value.startswith("+") else 1
    start, unknown, values = skip_options(words, first, spec)
    if (start == 1 and not unknown) or any(option in values for option in STOPS.get(name, HELP)):
        return forms
    forms.append(((words[0], *words[start:]), not unknown))
    if unknown and start + 1 < len(words):
        forms.append(((words[0], *words[start + 1 :]), False))
    return forms


def git_subcommand(words: tuple[Word, ...]) -> tuple[str, tuple[Word, ...], list[Word]]:
    """(subcommand, its arguments, the `-C` folders it runs in) of a git command; "" when there is none."""
    start, _, _ = skip_options(words, 1, GIT)
    folders: list[Word] = []
    i = 1
    while i < start:
        if words[i].literal and words[i].value == "-C" and i + 1 < start:
            folders.append(words[i + 1])
            i += 2
            continue
        i += 1
    if start >= len(words):
        return "", (), folders
    return words[start].value, words[start + 1 :], folders


RUNS_PROGRAM = {
    "rg": ("--pre", "--hostname-bin"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
            "--new-volume-script", "-F"),
    "sort": ("--compress-program",),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
}
GIT_RUNS = {
    "rebase": ("-x", "--exec"),
    "difftool": ("-x", "--extcmd"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "clone": ("-u", "--upload-pack"),
    "ls-remote": ("--upload-pack",),
    "push": ("--receive-pack", "--exec"),
    "archive": ("--exec",),
    "filter-branch": ("--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
                      "--commit-filter", "--tag-name-filter"),
}


def option_blockers(words: tuple[Word, ...]) -> list[str]:
    """Options that make an ordinary program run another program chosen on the command line."""
    if not words or not words[0].literal:
        return []
    name = command_name(words[0])
    if name == "git":
        return _git_blockers(words)
    found = []
    for option in RUNS_PROGRAM.get(name, ()):
        for word in words[1:]:
            if word.value == option or word.value.startswith(option + ("=" if option.startswith("--") else "")):
                found.append(f"`{name} {option}` runs another program")
                break
    if name == "sed":
        effects = sed_effects(words)
        found.extend("runs command lines (sed `e`)" for _ in effects.runs[:1])
        found.extend(effects.unchecked)
    return found


def _git_blockers(words: tuple[Word, ...]) -> list[str]:
    i = 1
    while i < len(words) and words[i].value.startswith("-"):
        text = words[i].value
        if text.startswith("-c") or text.startswith("--config-env") or text.startswith("--exec-path="):
            return [f"`git {text.split('=')[0]}` can set an option that runs a program (core.pager, alias.*)"]
        i += 2 if text in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
    sub, rest, _ = git_subcommand(words)
    if sub in ("bisect", "submodule") and rest and rest[0].value in ("run", "foreach"):
        return [f"`git {sub} {rest[0].value}` runs a command"]
    return [f"`git {sub} {option}` runs another program" for option in GIT_RUNS.get(sub, ())
            if any(_is_option(word, option) for word in rest)]


def _is_option(word: Word, option: str) -> bool:
    text = word.value if word.literal else word.prefix
    return text == option or text.startswith(option + "=") or (len(option) == 2 and text.startswith(option))


RUNNERS: dict[tuple[str, ...], Options] = {
    ("uv", "run"): Options("qvsm", "p", _flags("--no-sync", "--frozen", "--locked", "--isolated", "--no-project",
                           "--all-extras", "--no-dev", "--dev", "--quiet", "--verbose", "--offline", "--script",
                           "--module", "--active", "--no-cache", "--all-packages", "--exact", "--no-editable"),
                           _flags("--with", "--with-editable", "--with-requirements", "--python", "--package",
                                  "--extra", "--group", "--env-file", "--directory", "--project", "--index")),
    ("poetry", "run"): Options("qv", "CP", _flags("--quiet", "--verbose", "--no-interaction"),
                               _flags("--directory", "--project")),
    ("pipenv", "run"): Options(),
    ("pdm", "run"): Options("v", "p", _flags("--verbose", "--list"), _flags("--project")),
    ("hatch", "run"): Options(),
    ("bundle", "exec"): Options(),
    ("npx",): Options("yq", "pc", _flags("--yes", "--no", "--quiet", "--no-install"), _flags("--package", "--call")),
    ("npm", "exec"): Options("yq", "c", _flags("--yes", "--no", "--quiet"), _flags("--package", "--call")),
    ("pnpm", "exec"): Options("r", "", _flags("--recursive", "--parallel")),
    ("yarn", "exec"): Options(),
    ("conda", "run"): Options("", "np", _flags("--no-capture-output", "--live-stream"),
                              _flags("--name", "--prefix", "--cwd")),
    ("mamba", "run"): Options("", "np", _flags("--no-capture-output", "--live-stream"), _flags("--name", "--prefix")),
    ("micromamba", "run"): Options("", "np", frozenset(), _flags("--name", "--prefix", "--cwd")),
    ("direnv", "exec"): Options(),
}


def runs_inside(words: tuple[Word, ...]) -> list[Inner]:
    """What a runner, `git bisect run`, `git submodule foreach`, `git rebase --exec` or sed's `e` command runs,
    for deny and ask rules (forms after an unknown option included)."""
    if not words or not words[0].literal:
        return []
    name = command_name(words[0])
    found: list[Inner] = []
    for prefix, spec in RUNNERS.items():
        named = tuple(w.value if w.literal else None for w in words[1 : len(prefix)])
        if name == prefix[0] and named == prefix[1:]:
            start, unknown, _ = skip_options(words, len(prefix), spec)
            start += 1 if prefix == ("direnv", "exec") else 0
            found.extend(Inner(words[at:]) for at in (start, start + 1)[: 1 + bool(unknown)] if at < len(words))
    if name == "git":
        found.extend(_git_runs(words))
    if name == "sed":
        found.extend(Inner(script=Word.plain(line)) for line in sed_effects(words).runs if line)
    return found


def _git_runs(words: tuple[Word, ...]) -> list[Inner]:
    sub, rest, _ = git_subcommand(words)
    if sub == "bisect" and rest and rest[0].value == "run":
        return [Inner(rest[1:])] if len(rest) > 1 else []
    if sub == "submodule" and rest and rest[0].value == "foreach":
        body = [w for w in rest[1:] if not (w.literal and w.value in ("--recursive", "-q", "--quiet"))]
        return [Inner(script=joined(tuple(body)))] if body else []
    found = []
    for i, word in enumerate(rest):
        for option in GIT_RUNS.get(sub, ()):
            if _is_option(word, option):
                text = word.value if word.literal else word.prefix
                if text == option and i + 1 < len(rest):
                    found.append(Inner(script=rest[i + 1]))
                elif text != option:
                    cut = len(option) + (1 if text.startswith(option + "=") else 0)
                    found.append(Inner(script=Word(word.value[cut:], word.literal, text[cut:], word.source)))
    return found
