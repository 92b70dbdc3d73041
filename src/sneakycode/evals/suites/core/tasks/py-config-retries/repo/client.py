import json
from pathlib import Path


def load_config(path=Path(__file__).with_name("config.json")):
    """The client's settings."""
    return json.loads(Path(path).read_text())
