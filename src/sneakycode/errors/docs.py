"""ERROR_DOCS: for every ErrorCode, what it means and the hint the model is given by default.
`docs/errors.md` is generated from it (``python -m sneakycode.docs``)."""

from __future__ import annotations

from typing import NamedTuple

from sneakycode.errors.codes import ErrorCode


class ErrorDoc(NamedTuple):
    meaning: str
    hint: str


ERROR_DOCS: dict[ErrorCode, ErrorDoc] = {
    ErrorCode.INVALID_ARGUMENTS: ErrorDoc(
        "The call's arguments are not valid JSON, miss a required field, have a wrong type or an unknown field.",
        "Fix each listed field and call the tool again with arguments that match its schema.",
    ),
    ErrorCode.UNKNOWN_TOOL: ErrorDoc(
        "No tool has that name.",
        "Call one of the available tools; the closest names are listed.",
    ),
    ErrorCode.INVALID_PATH: ErrorDoc(
        "The path is empty, contains a NUL byte, starts with `~` (home is not expanded), has a name over 255 "
        "bytes, is longer than the system allows, goes through a loop of symbolic links or is not valid text.",
        "Give a path relative to the workspace root, for example `src/app.py`.",
    ),
    ErrorCode.OUTSIDE_WORKSPACE: ErrorDoc(
        "The path (through `..` or as an absolute path) lies outside the workspace.",
        "Only files inside the workspace can be used; give a path relative to the workspace root.",
    ),
    ErrorCode.SYMLINK_ESCAPE: ErrorDoc(
        "The path, or one of its parent folders, is a symbolic link whose target lies outside the workspace.",
        "Use the file inside the workspace instead; links that leave the workspace are never followed.",
    ),
    ErrorCode.PATH_CHANGED: ErrorDoc(
        "Another process changed the path while the tool used it (a folder on the way became a link or a file), "
        "so the tool stopped instead of following it; nothing was changed.",
        "Look at the path again with list_dir; retry once it is stable, or tell the user something is changing it.",
    ),
    ErrorCode.NOT_FOUND: ErrorDoc(
        "Nothing exists at that path.",
        "Check the spelling; similar paths are listed when there are any. Use find_files or list_dir to look.",
    ),
    ErrorCode.IS_DIRECTORY: ErrorDoc(
        "The path names a directory where a file was expected.",
        "Use list_dir to see the directory's entries, then name a file.",
    ),
    ErrorCode.NOT_A_DIRECTORY: ErrorDoc(
        "The path (or one of its parents) names a file where a directory was expected.",
        "Name a directory, or choose another path.",
    ),
    ErrorCode.NOT_REGULAR_FILE: ErrorDoc(
        "The path names a FIFO, device or socket (or a link to one), not a regular file; it is never opened for "
        "reading, because reading it could hang or never end.",
        "Only regular files can be read with these tools; tell the user if they expected a normal file there.",
    ),
    ErrorCode.PROTECTED_PATH: ErrorDoc(
        "The path is the workspace root, or a place whose contents decide what runs later (config/protected_paths.py): "
        "`.git/` (hooks and config included), `.sneakycode/` (SneakyCode's own settings and rules), `.claude/`, "
        "`.mcp.json`, `.vscode/`, `.idea/`, `.envrc`, `.gitmodules`, shell start-up files; tools never change or "
        "delete them; reading them is allowed.",
        "Change files elsewhere; use run_command with git for repository operations, and ask the user to edit "
        "the protected place themselves.",
    ),
    ErrorCode.READ_ONLY_FILE: ErrorDoc(
        "The file is read-only (it has no write permission, for example mode 0444), so it is not replaced.",
        "Leave it as it is, or tell the user; they can make it writable (chmod u+w) if the change is wanted.",
    ),
    ErrorCode.BINARY_FILE: ErrorDoc(
        "The file is not text (it has NUL bytes or is not valid UTF-8/UTF-16); its size is given.",
        "Binary files cannot be read or edited with these tools; use run_command with a suitable program.",
    ),
    ErrorCode.FILE_TOO_LARGE: ErrorDoc(
        "The file, or the content to write, is larger than max_file_size_bytes; both sizes are given.",
        "Read a part with start_line/end_line, search it with grep_files, or write smaller files.",
    ),
    ErrorCode.INVALID_RANGE: ErrorDoc(
        "The requested line range does not exist in the file; the file's length is given.",
        "Ask for lines between 1 and the file's last line.",
    ),
    ErrorCode.NOT_READ: ErrorDoc(
        "The file exists but was not read in this session, so it cannot be changed yet.",
        "Call read_file on it first, then repeat the change.",
    ),
    ErrorCode.STALE_READ: ErrorDoc(
        "The file changed on disk since it was last read in this session, and the change touches the lines the "
        "edit changes (or the call rewrites the whole file); the outside change and any conflict are shown.",
        "Call read_file again to see the current content, then redo the change against it.",
    ),
    ErrorCode.IO_ERROR: ErrorDoc(
        "The operating system refused the operation (permissions, disk full, ...); its message is quoted.",
        "Check the path and its permissions; the file was left unchanged.",
    ),
    ErrorCode.NO_MATCH: ErrorDoc(
        "old_str was not found in the file, even with tolerant matching; the most similar region is shown.",
        "Copy the exact current text from the region shown (or read the file again) and retry.",
    ),
    ErrorCode.MULTIPLE_MATCHES: ErrorDoc(
        "old_str occurs more than once; the line number of every match is listed.",
        "Add surrounding lines to old_str so it is unique, or set replace_all to true.",
    ),
    ErrorCode.NO_CHANGE: ErrorDoc(
        "The edit would not change the file (old_str equals new_str, or the patch changes nothing).",
        "Make sure new_str differs from old_str; the file was not touched.",
    ),
    ErrorCode.INVALID_PATCH: ErrorDoc(
        "The patch is not a unified diff that can be parsed, or its header names another file.",
        "Send a unified diff with `@@ -a,b +c,d @@` hunks whose lines start with ' ', '-' or '+'.",
    ),
    ErrorCode.PATCH_FAILED: ErrorDoc(
        "A hunk's context and removed lines were not found (uniquely) in the file; nothing was applied.",
        "Read the lines around the hunk again and rebuild it from the current text, or send a smaller hunk.",
    ),
    ErrorCode.INVALID_PATTERN: ErrorDoc(
        "The search pattern is not a valid regular expression (ripgrep/Rust syntax); the engine's message is quoted.",
        "Fix the regex, or set fixed_strings to true to search for the text literally.",
    ),
    ErrorCode.NONZERO_EXIT: ErrorDoc(
        "The command ran and exited with a non-zero status; its full output and exit code are shown.",
        "Read the output to see what failed, fix the cause, and run it again.",
    ),
    ErrorCode.TIMED_OUT: ErrorDoc(
        "The command ran longer than its timeout and was killed with its whole process group; output so far is shown.",
        "Use a longer timeout (in seconds, within the allowed range), or do not run servers or watchers.",
    ),
    ErrorCode.KILLED_BY_SIGNAL: ErrorDoc(
        "The command was ended by a signal, which is named.",
        "Check whether the command ran out of memory or was killed from outside, then retry or change it.",
    ),
    ErrorCode.SANDBOX_UNAVAILABLE: ErrorDoc(
        "tools.shell.sandbox is `bwrap` but bubblewrap cannot run here; the probe's error is quoted.",
        "Tell the user; they can install bubblewrap or set tools.shell.sandbox to `auto` or `off`.",
    ),
    ErrorCode.JOB_LIMIT: ErrorDoc(
        "tools.shell.max_jobs background jobs are already running, so no other one was started; they are listed.",
        "Kill a job you no longer need with the job tool (action kill), then start the command again.",
    ),
    ErrorCode.NO_SUCH_JOB: ErrorDoc(
        "This session has no job with that id; the session's jobs are listed.",
        "Use a job id that run_command with background=true returned.",
    ),
    ErrorCode.PATTERN_NOT_SEEN: ErrorDoc(
        "No line of a job's output matched the pattern before the wait ended or the job exited; its output is shown.",
        "Read the output: the job may have failed or print something else. Wait longer or change the pattern.",
    ),
    ErrorCode.PERMISSION_DENIED: ErrorDoc(
        "A permission rule, the current mode, or headless mode without approval refused the call; the reason is given.",
        "Do not retry the same call; choose another approach, or tell the user which rule blocks it.",
    ),
    ErrorCode.REJECTED_BY_USER: ErrorDoc(
        "The user declined this call.",
        "Do not repeat it; ask the user what to do instead or take another approach.",
    ),
    ErrorCode.BLOCKED_BY_HOOK: ErrorDoc(
        "A PreToolUse hook the user configured refused the call (exit code 2, or a `deny` or `block` decision); "
        "nothing ran, and the hook's reason is given.",
        "Follow the hook's reason: change the call as it says or take another approach; do not repeat the same call.",
    ),
    ErrorCode.SUBAGENT_FAILED: ErrorDoc(
        "The subagent ended without an answer: its model request failed, it reached the turn limit, or no turns "
        "were left; what it said last is given.",
        "Do the task yourself, or give a subagent a smaller, clearer task.",
    ),
    ErrorCode.CANCELLED: ErrorDoc(
        "The call was interrupted before it finished (the user cancelled the turn).",
        "Wait for the user's next instruction.",
    ),
    ErrorCode.INTERNAL_ERROR: ErrorDoc(
        "The tool stopped on an unexpected error (a bug in SneakyCode, not in the call); the exception is quoted.",
        "Check the current state (read the file again) before going on; try another tool or approach.",
    ),
    ErrorCode.INVALID_TOOL_CALL: ErrorDoc(
        "A tool call written as text (a `<tool_call>`, `[TOOL_CALLS]`, `<|python_tag|>` or similar block) names no "
        "offered tool or has arguments that do not parse; it was not run.",
        "Call one of the offered tools, with arguments in the format shown (or use the native tool-call API).",
    ),
    ErrorCode.MCP_ERROR: ErrorDoc(
        "An MCP server's tool reported an error (isError), refused the call, or the server stopped; the server's "
        "own message (or its stderr tail) is quoted.",
        "Read the server's message: fix the arguments it names, or continue without this server's tools.",
    ),
    ErrorCode.HTTP_ERROR: ErrorDoc(
        "The web server answered with an error status (4xx or 5xx), which is given with the start of its body.",
        "Check the URL (a 404 often means a moved page: try the site's index); do not retry a 4xx unchanged.",
    ),
    ErrorCode.FETCH_FAILED: ErrorDoc(
        "The URL could not be fetched: not http or https, a name that does not resolve, a refused or timed-out "
        "connection, a TLS failure, too many redirects or a body that does not decode; the cause is quoted.",
        "Check the URL's spelling and scheme; if the site is down or slow, go on without it and tell the user.",
    ),
    ErrorCode.UNSUPPORTED_CONTENT: ErrorDoc(
        "The content cannot be shown to this model: a web page of a type other than HTML, text, JSON, Markdown or "
        "PDF (the type is named), or an image for a model that does not accept images.",
        "Fetch a page of a readable type; for an image, ask the user to describe it or to use a vision model.",
    ),
    ErrorCode.BLOCKED_ADDRESS: ErrorDoc(
        "The URL, or a redirect on the way, leads to a private, loopback, link-local or otherwise internal address, "
        "which web_fetch does not reach unless tools.web.allow_private is set by the user.",
        "Use a public URL; internal services are off limits unless the user allows them in their own config.",
    ),
    ErrorCode.NETWORK_DENIED: ErrorDoc(
        'A sandboxed command in `tools.shell.network = "allowlist"` mode tried to reach a host the allowlist '
        "does not name, a port it does not allow, a name that resolves to an internal address, or a host name "
        "with characters or an IP form that could mean two things; SneakyCode's proxy refused the connection. "
        "The result names each host and the setting that would allow it.",
        "Do not work around it; if the command needs that host, ask the user to add it to tools.shell.allowed_hosts "
        "(or a preset: python, node, rust, go).",
    ),
    ErrorCode.INVALID_INPUT: ErrorDoc(
        "A line on stdin of `--input-format stream-json` is not a user message: not UTF-8, not JSON, nested too "
        "deeply, of another shape or over 4 MiB; it was skipped and the session goes on. Reported to the program "
        "driving the session (an `error` event and a line on stderr), never to the model.",
        'Send one JSON object per line: {"type": "user", "message": {"role": "user", "content": "..."}}.',
    ),
    ErrorCode.OUTPUT_SCHEMA_MISMATCH: ErrorDoc(
        "A run with an output schema (`-p --output-schema FILE`, `Options.output_schema`) ended with a final answer "
        "that is not JSON valid against the schema, even after the validation errors were sent back to the model "
        "once. The request ends with status `error` (exit code 1) and no `structured_output`; the message lists "
        "the problems and shows the answer.",
        "End with only the JSON value the schema describes (as the finish message or the reply), nothing around it.",
    ),
    ErrorCode.OUTPUT_SCHEMA_INVALID: ErrorDoc(
        "The output schema (`--output-schema FILE`, `Options.output_schema`) was refused before any request: it is "
        "not JSON or not a valid JSON Schema, has a `$ref` that points outside the schema (a URL or a file: an "
        "output schema resolves no remote or file reference), a `pattern` RE2 does not accept (lookarounds, "
        "backreferences), or nests deeper than 64 levels. Reported to the user (exit code 2), never to the model.",
        "Fix the schema: keep every definition under `$defs` and refer to it as `#/$defs/NAME`; use RE2 patterns.",
    ),
    ErrorCode.SEARCH_NOT_CONFIGURED: ErrorDoc(
        "web_search has no backend: `[tools.web.search]` sets none (or a searxng backend without its url). The "
        "model is only offered web_search once one is configured; this comes from `sneakycode tool web_search`.",
        "Set tools.web.search.backend (searxng, brave or tavily) in your own config; see docs/web.md.",
    ),
    ErrorCode.SEARCH_UNAVAILABLE: ErrorDoc(
        "The search backend could not be reached, did not answer within tools.web.search.timeout, redirected "
        "elsewhere or answered with an error status (given with the start of its body).",
        "Go on without searching (web_fetch a page you know) and tell the user the search backend is down.",
    ),
    ErrorCode.SEARCH_RATE_LIMITED: ErrorDoc(
        "The search backend refused the query for now (HTTP 429); the time it asks to wait, from Retry-After "
        "(or Brave's X-RateLimit-Reset), is given when it sent one, also as data.retry_after in seconds.",
        "Wait that long before searching again, or go on without searching.",
    ),
    ErrorCode.SEARCH_UNAUTHORIZED: ErrorDoc(
        "The search backend refused the key (HTTP 401 or 403), or the environment variable that should hold it "
        "(tools.web.search.api_key_env, named in the message) is not set; a SearXNG 403 usually means its JSON "
        "format is not enabled.",
        "Tell the user: the key variable named in the message must be set to a valid key (the model cannot fix it).",
    ),
    ErrorCode.SEARCH_BAD_RESPONSE: ErrorDoc(
        "The search backend answered something that is not its API's JSON: not JSON at all (an HTML page, a proxy's "
        "error), over 2 MiB, or JSON of another shape; the start of the answer is quoted.",
        "Tell the user tools.web.search.url may point at the wrong address; do not retry unchanged.",
    ),
    ErrorCode.NO_LANGUAGE_SERVER: ErrorDoc(
        "No language server is available for this file's language (none configured in `[lsp.servers]` and none "
        "of the common ones on PATH), so `code` cannot answer for it.",
        "Use grep_files and read_file for this file.",
    ),
    ErrorCode.LANGUAGE_SERVER_FAILED: ErrorDoc(
        "The language server could not start, exited, or answered with an error (its last stderr lines are "
        "shown); it was stopped, and the next `code` call starts it again.",
        "Try once more; if it fails again, use grep_files and read_file instead.",
    ),
    ErrorCode.LANGUAGE_SERVER_TIMEOUT: ErrorDoc(
        "The language server did not answer within lsp.request_timeout (or lsp.startup_timeout while starting); "
        "it was stopped with its whole process group, and the next `code` call starts it again.",
        "Try once more later, or use grep_files and read_file instead.",
    ),
    ErrorCode.SYMBOL_NOT_ON_LINE: ErrorDoc(
        "The symbol named is not on the line given (or the column is past the line's end); the line is shown.",
        "Give the line where the name is written (read_file shows line numbers), or a column on it.",
    ),
}
