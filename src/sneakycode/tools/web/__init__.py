"""web_fetch: an http(s) page as Markdown or text, reached only at addresses checked on every hop."""
