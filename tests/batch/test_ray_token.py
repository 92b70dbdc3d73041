"""Hardening round three, advisory class (local listeners): the local Ray that `--executor ray` starts listens
on every address (Ray's design) and runs whatever code a client sends, so it must answer only clients holding
the batch's own token; a client without it is refused."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

pytestmark = pytest.mark.ray

START = """
import json, os, subprocess, sys
import ray
from sneakycode.batch.executors.ray import start_local_ray

start_local_ray(1)
gcs = ray.get_runtime_context().gcs_address
ours = ray.get(ray.remote(lambda: 41 + 1).remote())
without = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_TOKEN"}
join = "import ray; ray.init(address=%r); print('JOINED', ray.get(ray.remote(lambda: 1).remote()))" % gcs
# A wrong token (a client with none gives up by itself, before asking): refused by Ray's own servers.
run = subprocess.run([sys.executable, "-c", join], env={**without, "RAY_AUTH_TOKEN": "a-guess"}, capture_output=True,
                     text=True, timeout=240)
ray.shutdown()
print(json.dumps({"ours": ours, "code": run.returncode, "out": run.stdout, "err": run.stderr[-3000:]}))
"""


@pytest.mark.slow  # Ray's client retries a refused token for about 25 s before it gives up
def test_a_client_without_the_batchs_token_cannot_use_the_local_ray(isolated_home: Path) -> None:
    done = subprocess.run([sys.executable, "-c", START], capture_output=True, text=True, timeout=400,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(isolated_home), "RAY_ADDRESS": ""})
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["ours"] == 42  # the batch's own driver works
    assert report["code"] != 0 and "JOINED" not in report["out"]
    assert "Authentication token is missing or incorrect" in report["err"]
    assert not (isolated_home / ".ray" / "auth_token").exists()  # the token was the batch's, not kept on disk


@pytest.mark.parametrize(("version", "mode", "said"), [
    ("2.58.1", None, "pip install -U 'ray>=2.59'"),
    ("2.60.0", "disabled", "RAY_AUTH_MODE=disabled would start a local Ray that anyone"),
])
def test_no_local_ray_starts_without_token_authentication(monkeypatch: pytest.MonkeyPatch, version: str,
                                                          mode: str | None, said: str) -> None:
    import ray

    from sneakycode.batch.executors.ray import start_local_ray
    from sneakycode.errors import ConfigError

    monkeypatch.setattr(ray, "__version__", version)
    monkeypatch.setattr(ray, "init", lambda **_: pytest.fail("a Ray was started"))
    if mode is not None:
        monkeypatch.setenv("RAY_AUTH_MODE", mode)
    with pytest.raises(ConfigError, match=re.escape(said)):
        start_local_ray(1)
