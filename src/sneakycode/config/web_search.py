"""`[tools.web.search]`: the search backend web_search sends queries to. Every key that chooses where a
query goes or which secret goes with it is the user's alone (config/trust.py holds them back from an
untrusted repository); the key itself is only ever read from the environment variable named here."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

SearchBackend = Literal["searxng", "brave", "tavily"]
# The variable each hosted backend's key is read from when api_key_env names none: the names their docs use.
DEFAULT_KEY_VARIABLES: dict[str, str] = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY"}


class WebSearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)

    backend: SearchBackend | None = Field(
        None,
        description="Where web_search sends queries: searxng (your own instance's JSON API), brave (Brave Search "
        "API) or tavily; unset, web_search is not offered.",
    )
    url: str | None = Field(
        None,
        description="The backend's address: required for searxng (`http://127.0.0.1:8888`; local and LAN "
        "addresses are fine), optional for brave and tavily (their public APIs by default).",
    )
    api_key_env: str | None = Field(
        None,
        description="The environment variable that holds the backend's key (unset: BRAVE_API_KEY for brave, "
        "TAVILY_API_KEY for tavily, none for searxng; set it for a searxng behind a proxy that wants a bearer "
        "token); the key itself is never written in a config file.",
    )
    timeout: float = Field(15.0, gt=0, description="Seconds a search waits to connect, and between reads.")
    max_results: int = Field(8, ge=1, le=20, description="Results a search returns when the call does not say.")

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is None:
            return None
        try:
            parts = urlsplit(url)
            usable = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
        except ValueError:  # a bracketed host that is no IPv6 address, a port out of range
            usable = False
        if not usable or any(c.isspace() for c in url):
            raise ValueError(f"must be an http:// or https:// address with a host, got {url!r}")
        return url

    @property
    def configured(self) -> bool:
        """Whether web_search is offered: a backend is chosen (and, for searxng, its address given). Layers are
        validated one by one, so a backend without its url is not an error at load: the tool is just not offered,
        and `sneakycode tool web_search` says what is missing."""
        return self.backend is not None and (self.backend != "searxng" or bool(self.url))

    @property
    def key_variable(self) -> str | None:
        """The environment variable the key is read from: api_key_env, else the backend's usual name. Commands
        never get it (like the model's key), whatever tools.shell.env_keep says."""
        return self.api_key_env or DEFAULT_KEY_VARIABLES.get(self.backend or "")
