"""A bash command line as the permission policy sees it: simple commands, redirections and hazards.

tree-sitter's bash grammar does the parsing (bashlex fails on quoted heredocs, `time`, `case` and
arithmetic). Every simple command is found wherever it sits: lists, pipelines, subshells, loops, function
bodies, heredoc bodies and command or process substitutions. Words are evaluated the way bash would after
quote removal (`"rm"`, `r''m`, `\\rm`, `$'rm'` are all `rm`); a word whose value is only known at run time
(an expansion or a glob) keeps its literal prefix so a rule can still tell whether it might match.
Parsing is cached per process: the agent asks about the same lines again and again.
"""

from __future__ import annotations

import itertools
import re
import shlex
import threading
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from sneakycode.permissions.shell.words import DYNAMIC_NODES, Word, brace_expand, expand, word_of

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

CASE_TERMINATORS = frozenset({";;", ";&", ";;&"})


@dataclass(frozen=True)
class Redirect:
    """A redirection; `target` is None when it only duplicates or closes a file descriptor."""

    operator: str
    target: Word | None
    source: str


@dataclass(frozen=True)
class SimpleCommand:
    """Words as written (leading `VAR=value` assignments included); `stdin` is the heredoc or herestring
    fed to it, when there is one; `stdin_redirect` its `< FILE` (or `<&N`); `piped` says a pipe feeds it,
    from `upstream` when that is a simple command. `fallback` marks words recovered from a line that does
    not parse: they are checked against deny rules only."""

    words: tuple[Word, ...]
    assignments: int
    source: str
    stdin: Word | None = None
    name_expanded: bool = False
    fallback: bool = False
    stdin_redirect: Redirect | None = None
    piped: bool = False
    upstream: SimpleCommand | None = None

    @property
    def core(self) -> tuple[Word, ...]:
        return self.words[self.assignments :]


@dataclass(frozen=True)
class ParsedLine:
    """`hazards` are the reasons the line can never be auto-approved (substitutions, syntax errors...)."""

    source: str
    commands: tuple[SimpleCommand, ...]
    redirects: tuple[Redirect, ...]
    hazards: tuple[str, ...]
    parses: bool


@dataclass
class _Collector:
    src: bytes
    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    hazards: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    by_node: dict[int, SimpleCommand] = field(default_factory=dict)

    def text(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


_lock = threading.Lock()


@cache
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _parse_tree(src: bytes) -> Node:
    with _lock:
        return _parser().parse(src).root_node


@lru_cache(maxsize=1024)
def parse_line(line: str) -> ParsedLine:
    """Parse one command line (cached). Never raises: what does not parse is reported as a hazard."""
    root = _parse_tree(line.encode())
    joined = _join_continuations(line, root)
    if joined != line:
        line, root = joined, _parse_tree(joined.encode())
    out = _Collector(line.encode())
    _walk(root, out)
    parses = not out.errors
    hazards = list(dict.fromkeys(out.hazards))
    if not parses:
        hazards.insert(0, f"it does not parse as bash ({out.errors[0]})")
        out.commands.extend(_fallback_commands(line))
    return ParsedLine(line, tuple(out.commands), tuple(out.redirects), tuple(hazards), parses)


def _join_continuations(line: str, root: Node) -> str:
    """Remove backslash-newline pairs the way bash does, except inside single quotes, comments and quoted
    heredoc bodies (tree-sitter would otherwise read `r\\<newline>m` as two words)."""
    if "\\\n" not in line:
        return line
    src = line.encode()
    cut: list[int] = []
    for match in re.finditer(rb"(\\+)\n", src):
        if len(match.group(1)) % 2 == 0:
            continue
        at = match.end() - 2
        node: Node | None = root.descendant_for_byte_range(at, at + 2)
        literal = False
        while node is not None:
            if node.type in ("raw_string", "comment", "ansi_c_string") or (
                node.type == "heredoc_body" and _heredoc_quoted(node)
            ):
                literal = True
                break
            node = node.parent
        if not literal:
            cut.append(at)
    if not cut:
        return line
    pieces, last = [], 0
    for at in cut:
        pieces.append(src[last:at])
        last = at + 2
    pieces.append(src[last:])
    return b"".join(pieces).decode("utf-8", errors="replace")


def _heredoc_quoted(body: Node) -> bool:
    redirect = body.parent
    if redirect is None:
        return False
    for child in redirect.children:
        if child.type == "heredoc_start":
            return any(ch in (child.text or b"") for ch in b"'\"\\")
    return False


def _walk(root: Node, out: _Collector) -> None:
    """Visit every node in source order (iteratively: a model can send a line nested thousands deep)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if _visit(node, out):
            stack.extend(reversed(node.children))


def _visit(node: Node, out: _Collector) -> bool:
    """Record what `node` contributes; False when its children are data, not code."""
    kind = node.type
    if node.is_error or node.is_missing:
        out.errors.append(_error_text(node, out))
    elif kind == "comment":
        return False
    elif kind in CASE_TERMINATORS and (node.parent is None or node.parent.type != "case_item"):
        out.errors.append(f"unexpected `{kind}`")
    elif kind in ("command", "declaration_command", "unset_command"):
        command = _command(node, out)
        out.commands.append(command)
        out.by_node[node.id] = command
    elif kind == "variable_assignments" or (
        kind == "variable_assignment"
        and node.parent is not None
        and node.parent.type not in ("command", "declaration_command", "variable_assignments")
    ):
        words = tuple(_assignment_word(child, out) for child in _assignments(node))
        out.commands.append(SimpleCommand(words, len(words), out.text(node)))
    elif kind == "command_substitution":
        out.hazards.append(f"command substitution {quoted(_short(out.text(node)))}")
    elif kind == "process_substitution":
        out.hazards.append(f"process substitution {quoted(_short(out.text(node)))}")
    elif kind == "expansion" and _is_prompt_expansion(node):
        out.hazards.append(f"prompt expansion {quoted(_short(out.text(node)))} (it can run commands)")
    elif kind == "file_redirect":
        out.redirects.append(_redirect(node, out))
    elif kind == "heredoc_body" and _heredoc_quoted(node):
        return False
    return True


def _error_text(node: Node, out: _Collector) -> str:
    if node.is_missing:
        return f"missing `{node.type}`"
    text = _short(out.text(node).strip())
    return f"syntax error near `{text}`" if text else "syntax error"


def quoted(text: str) -> str:
    """Text in backquotes for a message, with double ones when it contains a backquote itself."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_prompt_expansion(node: Node) -> bool:
    kinds = [child.type for child in node.children]
    return any(a == "@" and b == "P" for a, b in itertools.pairwise(kinds))


def _assignments(node: Node) -> list[Node]:
    if node.type == "variable_assignment":
        return [node]
    return [child for child in node.children if child.type == "variable_assignment"]


def _command(node: Node, out: _Collector) -> SimpleCommand:
    words: list[Word] = []
    assignments = 0
    name_expanded = False
    stdin: Word | None = None
    if node.type != "command":
        keyword = node.children[0]
        words.append(Word.plain(out.text(keyword)))
    for child in node.children:
        kind = child.type
        if not child.is_named or kind == "comment":
            continue
        if kind == "variable_assignment":
            word = _assignment_word(child, out)
            if node.type == "command" and len(words) == assignments:
                assignments += 1
            words.append(word)
        elif kind == "command_name":
            expanded = expand(child.children[0] if child.children else child, out.src)
            name_expanded = len(expanded) > 1
            words.extend(expanded)
        elif kind == "herestring_redirect":
            stdin = _herestring(child, out)
        elif kind in ("file_redirect", "heredoc_redirect"):
            continue
        else:
            words.extend(expand(child, out.src))
    parent = node.parent
    stdin_redirect = None
    if parent is not None and parent.type == "redirected_statement":
        for sibling in parent.children:
            if sibling.type == "heredoc_redirect":
                stdin = _heredoc(sibling, out)
            elif sibling.type == "herestring_redirect":
                stdin = _herestring(sibling, out)
        stdin_redirect = _stdin_redirect(parent, out)
    piped, upstream = _pipe_into(node, out)
    if piped and stdin_redirect is None:
        stage = parent if parent is not None and parent.type == "redirected_statement" else node
        outer = stage.parent
        if outer is not None and outer.type == "pipeline" and outer.named_children[-1].id == stage.id:
            wrapper = outer.parent
            if wrapper is not None and wrapper.type == "redirected_statement":
                stdin_redirect = _stdin_redirect(wrapper, out)
    return SimpleCommand(tuple(words), assignments, out.text(node), stdin, name_expanded,
                         stdin_redirect=stdin_redirect, piped=piped, upstream=upstream)


def _stdin_redirect(statement: Node, out: _Collector) -> Redirect | None:
    """The redirection of standard input (`< FILE`, `0< FILE`, `<&N`) among a statement's redirects."""
    for child in statement.children:
        if child.type != "file_redirect":
            continue
        redirect = _redirect(child, out)
        descriptor = child.child_by_field_name("descriptor")
        if redirect.operator in ("<", "<&", "<>") and (descriptor is None or out.text(descriptor) == "0"):
            return redirect
    return None


def _pipe_into(node: Node, out: _Collector) -> tuple[bool, SimpleCommand | None]:
    """Whether a pipe feeds the command `node`, and the simple command before it when there is one (tree-sitter
    hangs `cat <<EOF | sh` under the heredoc: the command the heredoc belongs to feeds the pipe then)."""
    stage = node
    if stage.parent is not None and stage.parent.type == "redirected_statement":
        stage = stage.parent
    pipeline = stage.parent
    if pipeline is None or pipeline.type != "pipeline":
        return False, None
    stages = pipeline.named_children
    index = next((i for i, child in enumerate(stages) if child.id == stage.id), 0)
    if index == 0:
        holder = pipeline.parent
        if holder is None or holder.type != "heredoc_redirect" or holder.parent is None:
            return False, None
        before: Node | None = holder.parent.child_by_field_name("body")
    else:
        before = stages[index - 1]
    while before is not None and before.type in ("redirected_statement", "negated_command"):
        if before.type == "redirected_statement":
            before = before.child_by_field_name("body")
        else:
            before = before.named_children[0]
    return True, out.by_node.get(before.id) if before is not None else None


def _assignment_word(node: Node, out: _Collector) -> Word:
    parts = [Word.plain(out.text(child)) for child in node.children if child.type in ("variable_name", "subscript")]
    name = "".join(p.value for p in parts) or out.text(node).split("=", 1)[0]
    operator = "+=" if any(child.type == "+=" for child in node.children) else "="
    values = [child for child in node.children if child.is_named and child.type not in ("variable_name", "subscript")]
    value = word_of(values[0], out.src) if values else Word.plain("")
    text = f"{name}{operator}{value.value}"
    return Word(text, value.literal, f"{name}{operator}{value.prefix}", out.text(node))


def _redirect(node: Node, out: _Collector) -> Redirect:
    operator = next((child.type for child in node.children if not child.is_named), "")
    destination = node.child_by_field_name("destination")
    target: Word | None = None
    if destination is not None and not (operator in (">&", "<&") and destination.type == "number"):
        target = word_of(destination, out.src)
    return Redirect(operator, target, out.text(node))


def _heredoc(node: Node, out: _Collector) -> Word | None:
    body = next((child for child in node.children if child.type == "heredoc_body"), None)
    if body is None:
        return Word.plain("")
    text = out.text(body)
    if _heredoc_quoted(body):
        return Word(text, True, text, text)
    if any(child.type in DYNAMIC_NODES for child in body.children):
        first = min(child.start_byte for child in body.children if child.type in DYNAMIC_NODES)
        return Word(text, False, out.src[body.start_byte : first].decode("utf-8", errors="replace"), text)
    value = re.sub(r"\\([$`\\])", r"\1", text.replace("\\\n", ""))
    return Word(value, True, value, text)


def _herestring(node: Node, out: _Collector) -> Word | None:
    values = [child for child in node.children if child.is_named]
    return word_of(values[-1], out.src) if values else None


def _fallback_commands(line: str) -> list[SimpleCommand]:
    """Best-effort words of a line that does not parse, split at control operators, for deny rules only:
    bash runs every complete command before the one with the syntax error."""
    lexer = shlex.shlex(line.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    found: list[SimpleCommand] = []
    current: list[Word] = []
    keywords = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "case", "esac"}
    for token in [*tokens, ";"]:
        if token and set(token) <= set(";&|()<>"):
            while current and current[0].value in keywords:
                current.pop(0)
            if current:
                found.append(SimpleCommand(tuple(current), 0, " ".join(w.value for w in current), fallback=True))
            current = []
            continue
        current.extend(_fallback_word(value) for value in brace_expand(token))
    return found


def _fallback_word(text: str) -> Word:
    """A word of a line that does not parse; an expansion or glob in it keeps it from being literal."""
    special = [text.index(ch) for ch in "$`*?[" if ch in text]
    return Word(text, False, text[: min(special)], text) if special else Word.plain(text)
