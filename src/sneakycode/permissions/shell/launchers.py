"""Launchers: programs that set something about a process (CPU, lock, scheduling, limits, namespaces, user,
tracing) and then run a command they are given, so deny rules must look inside them like inside `sudo`.

Each option table says which options take a value, so that the command is found exactly where the launcher
finds it; an option it does not know makes the next word a possible start too (for deny rules). Launchers
that change the user (`runuser`, `setpriv`, `sg`, `systemd-run`, `nsenter`) are approved only by an allow
rule naming the whole command. Files a launcher writes (`strace -o`, `script`'s log) are write targets.
"""

from __future__ import annotations

from dataclasses import replace

from sneakycode.permissions.shell.options import SU, Options, scan_options, skip_options, values_of
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import (
    Handler,
    Inner,
    Stdin,
    Unwrapped,
    joined,
    runs_fed,
    simple,
    stream,
    unknown_options,
)


def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


NAMESPACES = _flags("--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time")
TASKSET = Options("acphV", "", _flags("--all-tasks", "--pid", "--cpu-list", "--help", "--version"))
CHRT = Options("bdfioRramvphV", "TPD", _flags("--batch", "--deadline", "--fifo", "--idle", "--other", "--rr",
               "--reset-on-fork", "--all-tasks", "--max", "--verbose", "--pid", "--help", "--version"),
               _flags("--sched-runtime", "--sched-period", "--sched-deadline"))
PRLIMIT = Options("hV", "po", _flags("--noheadings", "--raw", "--verbose", "--help", "--version"),
                  _flags("--pid", "--output"), short_optional="cdefilmnqrstuvxy",
                  long_optional=_flags("--core", "--data", "--nice", "--fsize", "--sigpending", "--memlock", "--rss",
                                       "--nofile", "--msgqueue", "--rtprio", "--stack", "--cpu", "--nproc", "--as",
                                       "--locks", "--rttime"))
UNSHARE = Options("frchV", "RwSGl", _flags("--fork", "--map-root-user", "--map-current-user", "--map-auto",
                  "--keep-caps", "--help", "--version"),
                  _flags("--map-user", "--map-group", "--map-users", "--map-groups", "--propagation", "--setgroups",
                         "--root", "--wd", "--setuid", "--setgid", "--monotonic", "--boottime", "--load-interp"),
                  short_optional="muinpUCT", long_optional=NAMESPACES | _flags("--kill-child", "--mount-proc"))
NSENTER = Options("aFZehV", "tSGWN", _flags("--all", "--preserve-credentials", "--no-fork", "--follow-context",
                  "--env", "--user-parent", "--help", "--version"),
                  _flags("--target", "--setuid", "--setgid", "--wdns", "--net-socket"),
                  short_optional="muinpCUTrw", long_optional=NAMESPACES | _flags("--root", "--wd"))
FLOCK = Options("sxeunoFhV", "wEc", _flags("--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--no-fork",
                "--close", "--verbose", "--help", "--version"),
                _flags("--wait", "--timeout", "--conflict-exit-code", "--command"))
SCRIPT = Options("aefqhV", "IOBTmEoc", _flags("--append", "--return", "--flush", "--force", "--quiet", "--help",
                 "--version"), _flags("--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format",
                 "--echo", "--output-limit", "--command"), short_optional="t", long_optional=_flags("--timing"))
SCRIPT_LOGS = ("-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-t", "--timing")
STRACE = Options("ACcdDfFhikqrtTvVwxyYzZn", "abeEIoOpPsSuUX",
                 _flags("--follow-forks", "--output-separately", "--summary-only", "--summary", "--seccomp-bpf",
                        "--successful-only", "--failed-only", "--help", "--version", "--instruction-pointer",
                        "--stack-trace", "--no-abbrev", "--relative-timestamps", "--syscall-times",
                        "--summary-wall-clock",
                        "--decode-pids", "--syscall-number", "--always-show-pid"),
                 _flags("--output", "--user", "--env", "--attach", "--trace", "--signal", "--status", "--trace-path",
                        "--columns", "--abbrev", "--verbose", "--raw", "--read", "--write", "--quiet", "--kvm",
                        "--fault", "--inject", "--string-limit", "--summary-sort-by", "--summary-columns",
                        "--detach-on", "--interruptible", "--const-print-style", "--argv0"),
                 long_optional=_flags("--daemonize", "--absolute-timestamps", "--timestamps", "--decode-fds", "--tips"))
LTRACE = Options("bcCfhiLrStTV", "aAeDFlnopsuwxX", _flags("--demangle", "--help", "--version", "--no-signals"),
                 _flags("--align", "--config", "--indent", "--library", "--output"))
FISH = Options("ilnNPvh", "cCdopf", _flags("--interactive", "--login", "--no-execute", "--no-config", "--private",
               "--version", "--help", "--print-rusage-self", "--print-debug-categories"),
               _flags("--command", "--init-command", "--debug", "--debug-output", "--profile", "--profile-startup",
                      "--features", "--debug-stack-frames"))
NUMACTL = Options("lsHabuTtdDVh", "ipmNCPcoLMSfIw", _flags("--localalloc", "--show", "--hardware", "--all",
                  "--balancing", "--huge", "--touch", "--strict", "--dump", "--dump-nodes", "--version", "--help"),
                  _flags("--interleave", "--preferred", "--membind", "--cpunodebind", "--physcpubind",
                         "--preferred-many", "--cpubind", "--offset", "--length", "--shmmode", "--shm", "--file",
                         "--shmid", "--weighted-interleave"))
SYSTEMD_RUN = Options("rdtPqGShV", "upEHM", _flags("--no-ask-password", "--user", "--system", "--scope",
                      "--slice-inherit", "--no-block", "--wait", "--send-sighup", "--same-dir", "--pty", "--pipe",
                      "--quiet", "--collect", "--shell", "--on-timezone-change", "--on-clock-change",
                      "--remain-after-exit", "--help", "--version"),
                      _flags("--unit", "--property", "--description", "--slice", "--service-type", "--uid", "--gid",
                             "--nice", "--working-directory", "--setenv", "--host", "--machine", "--path-property",
                             "--socket-property", "--timer-property", "--on-active", "--on-boot", "--on-startup",
                             "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--json"),
                      long_optional=_flags("--expand-environment"))
SETPRIV = Options("dhV", "", _flags("--dump", "--nnp", "--no-new-privs", "--clear-groups", "--keep-groups",
                  "--init-groups", "--reset-env", "--help", "--version"),
                  _flags("--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid", "--egid",
                         "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig", "--selinux-label",
                         "--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"))
RUNUSER = Options(SU.short_flags, SU.short_args + "u", SU.long_flags, SU.long_args | _flags("--user"))
FAKEROOT = Options("uhv", "lisb", _flags("--unknown-is-real", "--help", "--version"),
                   _flags("--lib", "--faked", "--fd-base"))
XVFB_RUN = Options("ahl", "efnpsw", _flags("--auto-servernum", "--help", "--listen-tcp"),
                   _flags("--error-file", "--auth-file", "--server-num", "--xauth-protocol", "--server-args", "--wait"))
PARALLEL = Options("0kquvXmrtgphV", "jPSaIiLlnNdEC",
                   _flags("--null", "--keep-order", "--quote", "--ungroup", "--verbose", "--xargs", "--no-run-if-empty",
                          "--group", "--line-buffer", "--lb", "--bar", "--progress", "--eta", "--dry-run", "--tag",
                          "--pipe", "--will-cite", "--shuf", "--plus", "--semaphore", "--fg", "--bg", "--halt-on-error",
                          "--nonall", "--onall", "--help", "--version", "--citation"),
                   _flags("--jobs", "--max-procs", "--sshlogin", "--sshloginfile", "--arg-file", "--max-args",
                          "--max-lines", "--delimiter", "--colsep", "--joblog", "--results", "--res", "--tmpdir",
                          "--workdir", "--wd", "--timeout", "--delay", "--retries", "--halt", "--memfree", "--load",
                          "--nice", "--tagstring", "--tag-string", "--header", "--env", "--basefile", "--bf",
                          "--return", "--block", "--block-size", "--recstart", "--recend", "--termseq", "--limit",
                          "--id", "--semaphorename", "--transferfile", "--tf"))
PARALLEL_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})


def _flock(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`flock [options] FILE COMMAND...`, or `flock [options] FILE -c 'COMMAND LINE'` (through the shell)."""
    start, unknown, values = skip_options(words, 1, FLOCK)
    command = values.get("-c") or values.get("--command")
    rest = words[start + 1 :]
    if command is None and rest and rest[0].literal and rest[0].value in ("-c", "--command"):
        if len(rest) < 2:
            return Unwrapped("flock", blockers=("has no command string after -c",))
        command = rest[1]
    if command is not None:
        return Unwrapped("flock", (Inner(script=command),), blockers=unknown_options(unknown))
    if not rest:
        return None
    maybe = (Inner(rest[1:]),) if unknown and len(rest) > 1 else ()
    return Unwrapped("flock", (Inner(rest),), blockers=unknown_options(unknown), maybe=maybe)


def _chrt(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`chrt [options] [PRIORITY] COMMAND...`; `-p` and `-m` act on a process or only print."""
    start, unknown, values = skip_options(words, 1, CHRT)
    if any(option in values for option in ("-p", "--pid", "-m", "--max")):
        return None
    if start < len(words) and words[start].literal and words[start].value.isdigit():
        start += 1
    if start >= len(words):
        return None
    maybe = (Inner(words[start + 1 :]),) if unknown and start + 1 < len(words) else ()
    return Unwrapped("chrt", (Inner(words[start:]),), blockers=unknown_options(unknown), maybe=maybe)


def _script(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`script [options] [LOGFILE]`: runs `-c 'COMMAND LINE'` through the shell and writes its log files."""
    operands, unknown, found = scan_options(words, 1, SCRIPT)
    targets = [value for value in values_of(found, *SCRIPT_LOGS) if value.value]
    if operands:
        targets.append(operands[0])
    elif not targets:
        targets.append(Word.plain("typescript"))
    inner = tuple(Inner(script=command) for command in values_of(found, "-c", "--command"))
    return Unwrapped("script", inner, blockers=unknown_options(unknown), write_targets=tuple(targets))


def _tracer(name: str, spec: Options) -> Handler:
    """`strace`/`ltrace [options] COMMAND...`: `-o FILE` writes FILE, and `-o '|COMMAND'` runs COMMAND."""

    def unwrap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
        start, unknown, values = skip_options(words, 1, spec)
        output = values.get("-o") or values.get("--output")
        inner: list[Inner] = []
        targets: list[Word] = []
        if output is not None:
            head = output.value if output.literal else output.prefix
            if head[:1] in ("|", "!"):
                inner.append(Inner(script=Word(output.value[1:], output.literal, head[1:], output.source)))
            else:
                targets.append(output)
        if start < len(words):
            inner.insert(0, Inner(words[start:]))
        if not inner and not targets:
            return None
        maybe = (Inner(words[start + 1 :]),) if unknown and start + 1 < len(words) else ()
        return Unwrapped(name, tuple(inner), blockers=unknown_options(unknown), maybe=maybe,
                         write_targets=tuple(targets), privileged="-u" in values or "--user" in values)

    return unwrap


def _fish(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`fish -c`/`-C` strings and `fish FILE`'s text are parsed as bash would (close enough for deny rules;
    never approved)."""
    start, unknown, values = skip_options(words, 1, FISH)
    scripts = tuple(Inner(script=values[key]) for key in ("-c", "--command", "-C", "--init-command") if key in values)
    targets = tuple(values[key] for key in ("-o", "--debug-output", "-p", "--profile", "--profile-startup")
                    if key in values)
    if scripts:
        return Unwrapped("fish", scripts, blockers=unknown_options(unknown), write_targets=targets, shell=True)
    operands = words[start:]
    fed = stream(operands[0], stdin) if operands else stdin
    if fed is None:
        return Unwrapped("fish", write_targets=targets, files=(operands[0],), shell=True)
    return replace(runs_fed("fish", fed), write_targets=targets)


def su_like(name: str, spec: Options) -> Handler:
    """`su`/`runuser [options] [-] [USER] [-c 'COMMAND LINE']`, or `runuser -u USER [--] COMMAND...`."""

    def unwrap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
        values: dict[str, Word] = {}
        i = 1
        start, _, found = skip_options(words, 1, spec)
        if name == "runuser" and ("-u" in found or "--user" in found):
            command = found.get("-c") or found.get("--command")
            if command is not None:
                return Unwrapped(name, (Inner(script=command),), privileged=True)
            if start < len(words):
                return Unwrapped(name, (Inner(words[start:]),), privileged=True)
        while i < len(words):
            step, _, found = skip_options(words, i, spec)
            values.update(found)
            i = step + 1 if step == i else step
        command = values.get("-c") or values.get("--command") or values.get("--session-command")
        if command is None:
            return Unwrapped(name, privileged=True, blockers=("opens a shell as another user",))
        return Unwrapped(name, (Inner(script=command),), privileged=True)

    return unwrap


def _sg(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`sg [-] GROUP [-c] COMMAND LINE`: the rest is one command line for /bin/sh."""
    i = 2 if len(words) > 1 and words[1].value == "-" else 1
    i += 1
    if i < len(words) and words[i].value == "-c":
        i += 1
    if i >= len(words):
        return Unwrapped("sg", privileged=True, blockers=("opens a shell with another group",))
    return Unwrapped("sg", (Inner(script=joined(words[i:])),), privileged=True)


def _setarch(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`setarch ARCH [options] COMMAND...` (`linux32`/`linux64` without the ARCH)."""
    first = 2 if words[0].value.rsplit("/", 1)[-1] == "setarch" else 1
    spec = Options("vRFZLXBIST3h", "", _flags("--verbose", "--addr-no-randomize", "--fdpic-funcptrs",
                   "--mmap-page-zero",
                   "--addr-compat-layout", "--read-implies-exec", "--32bit", "--short-inode", "--whole-seconds",
                   "--sticky-timeouts", "--3gb", "--4gb", "--uname-2.6", "--list", "--help", "--version"))
    start, unknown, _ = skip_options(words, first, spec)
    if start >= len(words):
        return None
    return Unwrapped("setarch", (Inner(words[start:]),), blockers=unknown_options(unknown))


def _dashed(name: str) -> Handler:
    """Launchers whose options never take a separate value (`firejail --net=none`, `valgrind --tool=x`)."""

    def unwrap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
        i = 1
        while i < len(words) and (words[i].prefix if not words[i].literal else words[i].value).startswith("-"):
            i += 1
            if words[i - 1].literal and words[i - 1].value == "--":
                break
        return Unwrapped(name, (Inner(words[i:]),)) if i < len(words) else None

    return unwrap


def _parallel(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """GNU `parallel [options] COMMAND ::: ARGS`: COMMAND runs through the shell with each argument; without
    a COMMAND the arguments (or the lines of standard input) are the command lines."""
    name = words[0].value.rsplit("/", 1)[-1]
    start, unknown, _ = skip_options(words, 1, PARALLEL)
    rest = words[start:]
    cut = next((k for k, word in enumerate(rest) if word.literal and word.value in PARALLEL_SOURCES), len(rest))
    command, sources = rest[:cut], rest[cut:]
    blockers = ("builds command lines from its arguments", *unknown_options(unknown))
    maybe = (Inner(script=joined(command[1:])),) if unknown and len(command) > 1 else ()
    if command:
        return Unwrapped(name, (Inner(script=joined(command)),), blockers=blockers, maybe=maybe)
    if not sources:
        return Unwrapped(name, blockers=blockers, unseen=("runs the command lines it reads from standard input, "
                                                            "which cannot be seen",))
    lines: list[Inner] = []
    unseen: list[str] = []
    kind = ""
    for word in sources:
        if word.literal and word.value in PARALLEL_SOURCES:
            kind = word.value
        elif kind.startswith("::::"):
            unseen.append(f"runs the command lines in the file `{word.value}`, which cannot be seen")
        else:
            lines.append(Inner(script=word))
    return Unwrapped(name, tuple(lines), blockers=blockers, unseen=tuple(unseen))


LAUNCHERS: dict[str, Handler] = {
    "taskset": simple("taskset", TASKSET, operands=1, no_command=("-p", "--pid")),
    "flock": _flock,
    "chrt": _chrt,
    "prlimit": simple("prlimit", PRLIMIT, no_command=("-p", "--pid")),
    "unshare": simple("unshare", UNSHARE),
    "nsenter": simple("nsenter", NSENTER),
    "script": _script,
    "strace": _tracer("strace", STRACE),
    "ltrace": _tracer("ltrace", LTRACE),
    "fish": _fish,
    "numactl": simple("numactl", NUMACTL, no_command=("-s", "--show", "-H", "--hardware")),
    "firejail": _dashed("firejail"),
    "valgrind": _dashed("valgrind"),
    "systemd-run": simple("systemd-run", SYSTEMD_RUN),
    "sg": _sg,
    "su": su_like("su", SU),
    "runuser": su_like("runuser", RUNUSER),
    "setpriv": simple("setpriv", SETPRIV, no_command=("-d", "--dump")),
    "pkexec": simple("pkexec", Options("", "", _flags("--disable-internal-agent", "--keep-cwd"), _flags("--user"))),
    "fakeroot": simple("fakeroot", FAKEROOT, writes=("-s",)),
    "xvfb-run": simple("xvfb-run", XVFB_RUN, writes=("-e", "--error-file", "-f", "--auth-file")),
    "dbus-run-session": simple("dbus-run-session", Options("", "", frozenset(), _flags("--config-file",
                               "--dbus-daemon"))),
    "chronic": simple("chronic", Options("ev")),
    "ifne": simple("ifne", Options("n")),
    "unbuffer": simple("unbuffer", Options("p")),
    "catchsegv": simple("catchsegv", Options()),
    "proxychains": simple("proxychains", Options("q", "f")),
    "proxychains4": simple("proxychains4", Options("q", "f")),
    "setarch": _setarch,
    "linux32": _setarch,
    "linux64": _setarch,
    "parallel": _parallel,
    "sem": _parallel,
}
