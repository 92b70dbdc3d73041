"""What the `code` tool does (tool.py declares it): find the file's server, point at the place in LSP's terms,
ask, and turn the answer into places. Loaded on the first call, with pygls and lsprotocol.

What deny rules hide from the read tools stays out of every answer: the server asked never read it (a server
that could have is not `sealed`, and its hover text is withheld; hiding.py says why), and places in such
files are left out, counted (answers.Places)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.diagnostics.languages import language_of
from sneakycode.tools.lsp.answers import (
    Places,
    hover_text,
    locations,
    render_places,
    render_symbols,
    symbol_entries,
    utf16_column,
)
from sneakycode.tools.lsp.client import LspClient
from sneakycode.tools.lsp.host import refresh, stamp_of, workspace_reader
from sneakycode.tools.lsp.servers import ServerSpec, language_id, workspace_languages
from sneakycode.tools.lsp.tool import CodeArgs
from sneakycode.tools.read import number_line, split_lines

MAX_HOVER_CHARS = 4_000


def run_code(args: CodeArgs, ctx: ToolContext) -> ToolResult:
    """The `code` tool's work (its contract is on the tool)."""
    if not ctx.settings.lsp.enabled:
        raise ToolError(ErrorCode.NO_LANGUAGE_SERVER, "language servers are turned off (lsp.enabled = false)")
    if args.op == "symbols" and args.path is None:
        query = args.query or args.symbol
        if not query:
            raise _invalid("symbols needs a path (for its outline) or a symbol (to search the workspace for)")
        return _workspace_symbols(query, ctx)
    if args.path is None:
        raise _invalid(f"{args.op} needs path, line and symbol (or column)")
    real = ctx.workspace.resolve(args.path, must_exist=True)
    rule = ctx.hidden(ctx.workspace.display(real))
    if rule is not None:  # a rule on another reading tool (read_file(.env)) keeps the file from this one too
        raise ToolError(ErrorCode.PERMISSION_DENIED,
                        f"{args.path!r} is kept from the model by the deny rule `{rule}`, so `code` does not read it")
    text = ctx.workspace.read_text(args.path).text
    spec = _spec_for(ctx, real, text, args.path)
    client = ctx.language_servers.client_for(spec, real, ctx.language_servers.view(ctx.hidden), ctx.cancel)
    places = _places(ctx)
    if args.op == "symbols":
        answer = _ask(ctx, client, real, text, lambda: client.client.text_document_document_symbol_async(
            lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=real.as_uri()))), "documentSymbol")
        shown = ctx.workspace.display(real)
        rendered, data = render_symbols(f"{shown} outline", symbol_entries(answer, places, real.as_uri()),
                                        places.withheld, with_path=False)
        return ToolResult.ok(rendered, server=spec.name, **data)
    position = _position(args, text)
    document = lsp.TextDocumentIdentifier(uri=real.as_uri())
    where = f"{args.symbol or 'column ' + str(args.column)} at {ctx.workspace.display(real)}:{args.line}"
    if args.op == "hover":
        answer = _ask(ctx, client, real, text, lambda: client.client.text_document_hover_async(
            lsp.HoverParams(text_document=document, position=position)), "hover")
        said = hover_text(answer)
        if said and not client.sealed:
            return ToolResult.ok(f"hover {where}: withheld ({spec.name} could not be kept from the files a deny "
                                 "rule hides, so what it says may come from them)", server=spec.name, hover="",
                                 withheld=1)
        if len(said) > MAX_HOVER_CHARS:
            said = said[:MAX_HOVER_CHARS] + f"... [{len(said) - MAX_HOVER_CHARS} more characters cut]"
        return ToolResult.ok(f"hover {where}:\n{said}" if said else f"hover {where}: nothing to show",
                             server=spec.name, hover=said)
    if args.op == "definition":
        answer = _ask(ctx, client, real, text, lambda: client.client.text_document_definition_async(
            lsp.DefinitionParams(text_document=document, position=position)), "definition")
    else:
        asked = lsp.ReferenceParams(text_document=document, position=position,
                                    context=lsp.ReferenceContext(include_declaration=True))
        answer = _ask(ctx, client, real, text, lambda: client.client.text_document_references_async(asked),
                      "references")
    found = [place for uri, start in locations(answer) if (place := places.place(uri, start)) is not None]
    rendered, data = render_places(f"{args.op} of {where}", found, places.withheld)
    return ToolResult.ok(rendered, server=spec.name, **data)


def _workspace_symbols(query: str, ctx: ToolContext) -> ToolResult:
    servers = ctx.language_servers
    held = workspace_languages(ctx.workspace.root)
    spec = next((s for s in servers.specs if held.intersection(s.languages)), None)
    if spec is None:
        raise ToolError(ErrorCode.NO_LANGUAGE_SERVER, "no language server serves a language of this workspace")
    view = servers.view(ctx.hidden)
    client = servers.wait(servers.start(spec, servers.workspace, view), ctx.cancel)
    if client.view != view:  # it was already starting for an older view
        client = servers.wait(servers.start(spec, servers.workspace, view), ctx.cancel)
    places = _places(ctx)

    async def ask() -> Any:
        refresh(client, workspace_reader(ctx.workspace, ctx.hidden))
        return await client.ask(client.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query)),
                                "workspace/symbol")

    answer = servers.run(ask, ctx.cancel)
    rendered, data = render_symbols(f"symbols matching {query!r}", symbol_entries(answer, places),
                                    places.withheld, with_path=True)
    return ToolResult.ok(rendered, server=spec.name, **data)


def _spec_for(ctx: ToolContext, real: Path, text: str, shown: str) -> ServerSpec:
    language = language_of(real.name, text)
    spec = ctx.language_servers.spec_for(language)
    if spec is None:
        what = f"{language} files" if language else f"{shown!r} (its language is not known)"
        raise ToolError(ErrorCode.NO_LANGUAGE_SERVER, f"no language server is available for {what}")
    return spec


def _ask(ctx: ToolContext, client: LspClient, real: Path, text: str, request: Any, what: str) -> Any:
    """`request()` after the server holds the file as it is on disk (and every other file it holds, too)."""
    stamp = stamp_of(real) or (0, 0)
    language = language_of(real.name, text)

    async def ask() -> Any:
        refresh(client, workspace_reader(ctx.workspace, ctx.hidden))
        client.show(real, text, language_id(language or client.spec.languages[0]), stamp)
        return await client.ask(request(), what)

    return ctx.language_servers.run(ask, ctx.cancel)


def _position(args: CodeArgs, text: str) -> lsp.Position:
    """Where the model pointed, in LSP's terms: the symbol's first occurrence on the line as a whole word (or
    anywhere, for an operator; a dotted name's last part), or the 1-based character column; UTF-16 offsets."""
    if args.line is None or (args.symbol is None and args.column is None):
        raise _invalid(f"{args.op} needs line and symbol (or column)")
    lines = split_lines(text)
    if args.line < 1 or (args.column is not None and args.column < 1):
        raise _invalid("line and column count from 1, as read_file numbers lines")
    if args.line > max(len(lines), 1):
        raise ToolError(ErrorCode.INVALID_RANGE, f"line {args.line} is past the end of the file ({len(lines)} lines)")
    line = lines[args.line - 1] if lines else ""
    if args.symbol is not None:
        name = args.symbol.strip()
        found = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line) if name else None
        found = found or (re.search(re.escape(name), line) if name else None)
        if found is None:
            raise ToolError(ErrorCode.SYMBOL_NOT_ON_LINE, f"{args.symbol!r} is not on line {args.line}",
                            detail=number_line(args.line, line))
        # `geometry.area` (or `Box::new`) means its last part: the first part would be a module or a type.
        column = found.start() + max(name.rfind(".") + 1, name.rfind("::") + 2 if "::" in name else 0)
    else:
        assert args.column is not None
        if args.column > len(line) + 1:
            raise ToolError(ErrorCode.SYMBOL_NOT_ON_LINE, f"column {args.column} is past the end of line {args.line} "
                            f"({len(line)} characters)", detail=number_line(args.line, line))
        column = args.column - 1
    return lsp.Position(line=args.line - 1, character=utf16_column(line, column))


def _places(ctx: ToolContext) -> Places:
    workspace = ctx.workspace
    read = workspace_reader(workspace, ctx.hidden)

    def display(path: Path) -> str | None:
        return workspace.display(path) if workspace.contains(path) else None

    def lines_of(shown: str) -> list[str] | None:
        text = read(workspace.root / shown)
        return None if text is None else split_lines(text)

    return Places(display, lines_of, ctx.hidden)


def _invalid(message: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_ARGUMENTS, message,
                     hint='e.g. {"op": "definition", "path": "src/app.py", "line": 12, "symbol": "parse"}')
