"""The files an ordinary program writes because of its options and operands, as the policy checks them.

An allow rule written for what a program usually does (`git log`, `sort`, `curl`) approves a line only
when every file it writes is a plain path inside the workspace and outside the protected places
(config/protected_paths.py); `git config` (which changes what git runs) always needs a person.
Covered: redirections (in `policy.py`), `git --output`/`archive -o`/`format-patch -o`/`bundle create`,
`git config`, `sort -o`, `sed -i` and sed's `w`, `tee`, `curl -o/-O/-D/-c`, `wget -O/-o/-P`, `tar -c/-x`,
`cp`, `mv`, `ln`, `install`, `touch`, `truncate`, `dd of=`, `patch`, `unzip`. A program that writes paths it
does not name (an archive's members, a recursive download) is never approved by an allow rule.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from sneakycode.permissions.shell.options import Options, scan_options, values_of
from sneakycode.permissions.shell.programs import git_subcommand
from sneakycode.permissions.shell.sedscript import sed_effects
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import command_name


@dataclass(frozen=True)
class Writes:
    """`targets`: paths written, relative to where the command runs; `unseen`: why it writes paths it does
    not name; `protected`: why it changes what programs run later (git config), whatever the path."""

    targets: tuple[Word, ...] = ()
    unseen: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()


def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


def under(folders: list[Word], target: Word) -> Word:
    """`target` as seen from where the command started, when it is relative to `folders` (`git -C`)."""
    if not folders or (target.literal and target.value.startswith("/")):
        return target
    parts = [*folders, target]
    if all(part.literal for part in parts):
        return Word.plain(posixpath.join(*(part.value for part in parts)))
    text = "/".join(part.value for part in parts)
    return Word(text, False, "", "/".join(part.source or part.value for part in parts))


def _basename(word: Word) -> Word:
    if word.literal:
        return Word.plain(posixpath.basename(word.value.rstrip("/")) or word.value)
    return Word(word.value, False, "", word.source)


CONFIG_READS = _flags("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
                      "--list", "-l", "get", "list")
CONFIG_WRITES = _flags("--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
                       "--edit", "-e", "set", "unset", "rename-section", "remove-section", "edit")
CONFIG_VALUES = _flags("--file", "-f", "--blob", "--type", "--default", "--comment", "--value")
GIT_CONFIG = ("changes git's configuration, which names programs that git runs later (core.hooksPath, "
              "core.fsmonitor, aliases)")


def _git(words: tuple[Word, ...]) -> Writes:
    sub, rest, folders = git_subcommand(words)
    protected: list[str] = []
    if sub == "config" and _config_writes(rest):
        protected.append(GIT_CONFIG)
    if sub in ("init", "clone") and any(w.value.startswith("--template") for w in rest):
        protected.append("copies hooks from a template into the repository it creates (--template)")
    if sub == "clone" and any(w.value in ("-c", "--config") or w.value.startswith("--config=") for w in rest):
        protected.append(f"{GIT_CONFIG} (--config)")
    options = ("--output", "--output-directory") + (("-o",) if sub in ("archive", "format-patch") else ())
    targets: list[Word] = []
    for i, word in enumerate(rest):
        text = word.value if word.literal else word.prefix
        if word.literal and text == "--":
            break
        for option in options:
            if text == option and i + 1 < len(rest):
                targets.append(rest[i + 1])
            elif text.startswith(option + "=") or (option == "-o" and text.startswith("-o") and len(text) > 2):
                cut = len(option) + (1 if option.startswith("--") else 0)
                targets.append(Word(word.value[cut:], word.literal, text[cut:], word.source))
    if sub == "bundle" and rest and rest[0].value == "create":
        targets.extend([w for w in rest[1:] if not w.value.startswith("-")][:1])
    return Writes(tuple(under(folders, target) for target in targets), protected=tuple(protected))


def _config_writes(rest: tuple[Word, ...]) -> bool:
    """`git config` writes unless it reads (`--get`, `--list`, `get`, one name and no value)."""
    values = {w.value for w in rest}
    if values & CONFIG_READS:
        return False
    if values & CONFIG_WRITES or any(not w.literal for w in rest):
        return True
    operands = []
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word.value in CONFIG_VALUES:
            skip = True
        elif not word.value.startswith("-"):
            operands.append(word)
    return len(operands) >= 2


SORT = Options("bdfgiMhnRrVcCmsuz", "kSoTt", frozenset(),
               _flags("--key", "--output", "--buffer-size", "--field-separator", "--temporary-directory",
                      "--batch-size", "--compress-program", "--files0-from", "--parallel", "--random-source", "--sort"))
TEE = Options("aip", "", _flags("--append", "--ignore-interrupts"), long_optional=_flags("--output-error"))
CURL = Options("aqfGgIi0kjlLMnNZ#pJORSsvV23416Bh", "EKCbcdDFPHmxUQreXYytzTuAwo",
               frozenset(),
               _flags("--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
                      "--etag-save",
                      "--etag-compare", "--hsts", "--alt-svc", "--libcurl", "--output-dir", "--config", "--write-out",
                      "--cookie", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--form", "--header",
                      "--user", "--user-agent", "--referer", "--request", "--proxy", "--max-time", "--connect-timeout",
                      "--retry", "--cacert", "--cert", "--key", "--url", "--upload-file", "--range", "--json",
                      "--resolve", "--connect-to", "--oauth2-bearer", "--limit-rate", "--variable", "--unix-socket"))
CURL_WRITES = ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr",
               "--etag-save", "--hsts", "--alt-svc", "--libcurl")
WGET = Options("VhbdqvFcNSxErkKmpHL46", "eoaiBtOTwQPUlARDIXn", frozenset(),
               _flags("--execute", "--output-file", "--append-output", "--input-file", "--output-document",
                      "--directory-prefix", "--user-agent", "--tries", "--timeout", "--wait", "--level", "--accept",
                      "--reject", "--domains", "--header", "--config", "--post-data", "--user", "--password"))
WGET_NAMED = ("-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites", "-x", "--force-directories",
              "--content-disposition", "-i", "--input-file", "-e", "--execute", "--config")
TAR = Options("AcdrtuxzjJZvwkmOpPsSWhiBMRlUG", "bCfFgHIKLNTVX", frozenset(),
              _flags("--file", "--directory", "--files-from", "--exclude-from", "--listed-incremental", "--index-file",
                     "--format", "--use-compress-program", "--to-command", "--newer", "--after-date", "--label",
                     "--blocking-factor", "--owner", "--group", "--mode", "--mtime", "--transform", "--xform",
                     "--exclude", "--strip-components", "--volno-file", "--suffix", "--warning", "--sort"))
TAR_CREATES = ("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete")
COPY_FLAGS = _flags("--archive", "--force", "--interactive", "--no-clobber", "--recursive", "--symbolic", "--verbose",
                    "--no-target-directory", "--parents", "--dereference", "--no-dereference", "--link", "--relative",
                    "--strip", "--directory", "--physical", "--logical", "--one-file-system", "--remove-destination")
COPY_ARGS = _flags("--target-directory", "--suffix", "--mode", "--owner", "--group", "--no-preserve")
COPY_OPTIONAL = _flags("--preserve", "--sparse", "--reflink", "--backup", "--update", "--context")
COPIERS = {
    "cp": Options("abdfHilLnPpRrsTuvxZ", "St", COPY_FLAGS, COPY_ARGS, long_optional=COPY_OPTIONAL),
    "mv": Options("bfinTuvZ", "St", COPY_FLAGS, COPY_ARGS, long_optional=COPY_OPTIONAL),
    "ln": Options("bdfFinLPrsTv", "St", COPY_FLAGS, COPY_ARGS, long_optional=COPY_OPTIONAL),
    "install": Options("bcCdDpsTvZ", "gmoSt", COPY_FLAGS, COPY_ARGS, long_optional=COPY_OPTIONAL),
}
TOUCH = Options("acfhm", "drt", _flags("--no-create", "--no-dereference"), _flags("--date", "--reference", "--time"))
TRUNCATE = Options("co", "rs", _flags("--no-create", "--io-blocks"), _flags("--reference", "--size"))
PATCH = Options("bcelnNsftuRvEZTF", "BDdiopPrVYzg", frozenset(),
                _flags("--output", "--input", "--directory", "--strip", "--reject-file", "--backup-if-mismatch"))
UNZIP_READS = frozenset({"-l", "-p", "-t", "-v", "-Z", "-z"})


def _sort(words: tuple[Word, ...]) -> Writes:
    _, _, found = scan_options(words, 1, SORT)
    return Writes(tuple(values_of(found, "-o", "--output")))


def _tee(words: tuple[Word, ...]) -> Writes:
    operands, _, _ = scan_options(words, 1, TEE)
    return Writes(tuple(operands))


def _sed(words: tuple[Word, ...]) -> Writes:
    return Writes(sed_effects(words).targets)


def _curl(words: tuple[Word, ...]) -> Writes:
    operands, _, found = scan_options(words, 1, CURL)
    folders = values_of(found, "--output-dir")[-1:]
    targets = [under(folders, target) for target in values_of(found, "-o", "--output")]
    targets.extend(values_of(found, *CURL_WRITES[2:]))
    unseen = [f"reads options from `{config.value}`, which may name files to write"
              for config in values_of(found, "-K", "--config")]
    if any("%output{" in out.value for out in values_of(found, "-w", "--write-out")):
        unseen.append("writes files named in its --write-out format")
    if values_of(found, "-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"):
        for url in [*operands, *values_of(found, "--url")]:
            path = url.value.split("://", 1)[-1].split("?", 1)[0]
            name = posixpath.basename(path) if "/" in path else ""
            if url.literal and name:
                targets.append(under(folders, Word.plain(name)))
            else:
                unseen.append(f"writes a file named after {url.source or url.value}")
    return Writes(tuple(targets), tuple(unseen))


def _wget(words: tuple[Word, ...]) -> Writes:
    operands, _, found = scan_options(words, 1, WGET)
    folders = values_of(found, "-P", "--directory-prefix")[-1:]
    targets = values_of(found, "-O", "--output-document", "-o", "--output-file", "-a", "--append-output")
    named = [name for name, _ in found if name in WGET_NAMED]
    unseen = [f"writes files the server names (`{named[0]}`)"] if named else []
    if not values_of(found, "-O", "--output-document") and not named:
        for url in operands:
            path = url.value.split("://", 1)[-1].split("?", 1)[0]
            name = posixpath.basename(path) if "/" in path else ""
            targets.append(under(folders, Word.plain(name or "index.html")) if url.literal else _basename(url))
    targets.extend(folders)
    return Writes(tuple(targets), tuple(unseen))


def _tar(words: tuple[Word, ...]) -> Writes:
    if len(words) > 1 and words[1].literal and words[1].value and not words[1].value.startswith("-"):
        rest = list(words[2:])
        expanded = [words[0]]
        for letter in words[1].value:
            expanded.append(Word.plain(f"-{letter}"))
            if letter in TAR.short_args and rest:
                expanded.append(rest.pop(0))
        words = (*expanded, *rest)
    _, _, found = scan_options(words, 1, TAR)
    names = {name for name, _ in found}
    folders = values_of(found, "-C", "--directory")
    targets = [*values_of(found, "-g", "--listed-incremental", "--index-file", "--volno-file"), *folders]
    if names & set(TAR_CREATES):
        targets.extend(values_of(found, "-f", "--file"))
    unseen = []
    if names & {"-x", "--extract", "--get"} and not names & {"-O", "--to-stdout"}:
        unseen.append("extracts the paths named inside the archive")
    return Writes(tuple(targets), tuple(unseen))


def _copier(words: tuple[Word, ...]) -> Writes:
    name = command_name(words[0])
    operands, _, found = scan_options(words, 1, COPIERS[name])
    names = {option for option, _ in found}
    if name == "install" and names & {"-d", "--directory"}:
        return Writes(tuple(operands))
    destinations = values_of(found, "-t", "--target-directory")
    sources = operands
    if not destinations:
        if len(operands) >= 2:
            destinations, sources = [operands[-1]], operands[:-1]
        elif name == "ln" and operands:
            destinations = [Word.plain(".")]
        else:
            return Writes()
    targets = list(destinations)
    for folder in destinations:
        targets.extend(under([folder], _basename(source)) for source in sources)
        if "--parents" in names:
            targets.extend(under([folder], source) for source in sources)
    if name == "mv":
        targets.extend(sources)
    return Writes(tuple(targets))


def _operands(spec: Options) -> Callable[[tuple[Word, ...]], Writes]:
    def writes(words: tuple[Word, ...]) -> Writes:
        operands, _, _ = scan_options(words, 1, spec)
        return Writes(tuple(operands))

    return writes


def _dd(words: tuple[Word, ...]) -> Writes:
    return Writes(tuple(Word(w.value[3:], w.literal, w.prefix[3:], w.source) for w in words[1:]
                        if (w.value if w.literal else w.prefix).startswith("of=")))


def _patch(words: tuple[Word, ...]) -> Writes:
    _, _, found = scan_options(words, 1, PATCH)
    outputs = values_of(found, "-o", "--output")
    if outputs:
        return Writes(tuple(outputs))
    return Writes(unseen=("writes the files the patch names",))


def _unzip(words: tuple[Word, ...]) -> Writes:
    if any(w.value in UNZIP_READS for w in words[1:]):
        return Writes()
    folders = [words[i + 1] for i, w in enumerate(words[:-1]) if w.value == "-d"]
    return Writes(tuple(folders), ("extracts the paths named inside the archive",))


WRITERS: dict[str, Callable[[tuple[Word, ...]], Writes]] = {
    "git": _git,
    "sort": _sort,
    "tee": _tee,
    "sed": _sed,
    "curl": _curl,
    "wget": _wget,
    "tar": _tar,
    "touch": _operands(TOUCH),
    "truncate": _operands(TRUNCATE),
    "dd": _dd,
    "patch": _patch,
    "unzip": _unzip,
    **dict.fromkeys(COPIERS, _copier),
}


def writes_of(words: tuple[Word, ...]) -> Writes:
    """What the ordinary command `words` (assignments removed) writes."""
    if not words or not words[0].literal:
        return Writes()
    handler = WRITERS.get(command_name(words[0]))
    return handler(words) if handler else Writes()
