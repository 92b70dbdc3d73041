"""First run: with no provider configured and a terminal attached, a short guided setup.

Local servers that answer are offered first; then Groq, OpenAI, OpenRouter or a custom URL. A pasted key
is used for this session only and stored nowhere: the user is told which environment variable to export
(or, when the `keyring` module is importable and the user says so, it goes to the system keyring, where
`keyring_key` finds it on later starts). The model is picked from the server's own list. The choice is
saved to the user config with tomlkit, which keeps whatever else that file holds.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from sneakycode.api.models import KEY_PRESETS, LOCAL_PRESETS, list_models, probe_local_servers
from sneakycode.faces.shared.text import markup_safe

Ask = Callable[[str, bool], str]  # (question, secret) -> answer; raises EOFError/KeyboardInterrupt to cancel
KEYRING_SERVICE = "sneakycode"
CUSTOM_KEY_ENV = "CUSTOM_LLM_API_KEY"
LIST_TIMEOUT = 10.0
SHOWN_MODELS = 30


@dataclass(frozen=True)
class SetupChoice:
    provider: str
    model: str
    base_url: str | None  # saved only for a custom server: presets know their own
    api_key: str | None  # for this session; never written to the config
    key_env: str | None  # where the key should come from next time


def keyring_available() -> bool:
    return importlib.util.find_spec("keyring") is not None


def keyring_key(provider: str) -> str | None:
    """The key the setup saved in the system keyring for `provider`, if any (None without the module)."""
    if not keyring_available():
        return None
    import keyring  # optional, not a dependency: used only when the user installed it (keyring_available)

    try:
        found = keyring.get_password(KEYRING_SERVICE, provider)
    except Exception:  # a keyring backend can fail in many ways (no D-Bus, locked): then there is no key
        return None
    return str(found) if found else None


def _pick(ask: Ask, question: str, count: int) -> int:
    """A number from 1 to `count`, asked until one is given; returned 0-based."""
    while True:
        answer = ask(question, False).strip()
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1


def run_setup(console: Console, ask: Ask, config_path: Path) -> SetupChoice | None:
    """Ask, save to `config_path`, and return the choice; None when the user cancelled."""
    console.print("[bold]No model is set up yet.[/] A few questions and SneakyCode is ready (Ctrl-C cancels).")
    try:
        choice = _ask_choice(console, ask)
    except (EOFError, KeyboardInterrupt):
        console.print("[yellow]Setup cancelled; nothing was saved.[/]")
        return None
    save_choice(config_path, choice)
    console.print(f"Saved provider {markup_safe(choice.provider)} and model {markup_safe(choice.model)} to "
                  f"{markup_safe(str(config_path))}.")
    if choice.api_key and choice.key_env:
        console.print(f"[dim]The key is not stored: add `export {choice.key_env}=...` to your shell profile.[/]")
    return choice


def _ask_choice(console: Console, ask: Ask) -> SetupChoice:
    found = probe_local_servers(LOCAL_PRESETS)
    options: list[tuple[str, str]] = []
    if found is not None:
        preset, models = found
        options.append((preset.name, f"{preset.name} running at {preset.base_url} ({len(models)} model(s))"))
    options += [(preset.name, f"{preset.name}: {preset.help}") for preset in KEY_PRESETS]
    options.append(("custom", "another OpenAI-compatible server (a URL)"))
    for number, (_, text) in enumerate(options, 1):
        console.print(f"  {number}) {markup_safe(text)}")
    provider = options[_pick(ask, f"Which one? [1-{len(options)}] ", len(options))][0]
    keyed = next((preset for preset in KEY_PRESETS if preset.name == provider), None)
    local = next((preset for preset in LOCAL_PRESETS if preset.name == provider), None)
    api_key: str | None = None
    key_env: str | None = None
    saved_url: str | None = None
    if keyed is not None:
        base_url, key_env = str(keyed.base_url), keyed.api_key_env
        api_key = ask(f"Paste your {provider} API key ({keyed.help}): ", True).strip() or None
    elif local is not None:
        base_url = str(local.base_url)
    else:
        base_url = saved_url = ask("The server's URL (it usually ends in /v1): ", False).strip().rstrip("/")
        api_key = ask("Its API key (Enter for none): ", True).strip() or None
        key_env = CUSTOM_KEY_ENV if api_key else None
    if api_key and keyring_available() and ask("Save the key in the system keyring? [y/N] ", False).strip().lower() in (
        "y", "yes"
    ):
        import keyring

        keyring.set_password(KEYRING_SERVICE, provider, api_key)
        key_env = None
    model = _ask_model(console, ask, base_url, api_key)
    return SetupChoice(provider, model, saved_url, api_key, key_env)


def _ask_model(console: Console, ask: Ask, base_url: str, api_key: str | None) -> str:
    try:
        models = list_models(base_url, api_key, LIST_TIMEOUT)
    except (OSError, ValueError) as exc:
        console.print(f"[yellow]{markup_safe(base_url)}/models did not answer ({markup_safe(str(exc))}).[/]")
        models = []
    if not models:
        while not (name := ask("Model name: ", False).strip()):
            pass
        return name
    shown = models[:SHOWN_MODELS]
    for number, name in enumerate(shown, 1):
        console.print(f"  {number}) {markup_safe(name)}")
    more = f" (or type one of the {len(models) - len(shown)} others)" if len(models) > len(shown) else ""
    while True:
        answer = ask(f"Which model? [1-{len(shown)}]{more} ", False).strip()
        if answer.isdigit() and 1 <= int(answer) <= len(shown):
            return shown[int(answer) - 1]
        if answer in models:
            return answer


def save_choice(path: Path, choice: SetupChoice) -> None:
    """Set provider, model (and base_url, api_key_env for a custom server) in the user config, keeping the rest."""
    import tomlkit

    document: Any = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    document["provider"] = choice.provider
    document["model"] = choice.model
    if choice.base_url:
        document["base_url"] = choice.base_url
    if choice.provider == "custom" and choice.key_env:
        document["api_key_env"] = choice.key_env
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
