"""`python -m local_llm_server` as a process: it prints its base URL, serves, and stops on SIGTERM."""

from __future__ import annotations

import subprocess
import sys

import httpx


def test_module_entry_point_serves_until_terminated() -> None:
    command = [sys.executable, "-m", "local_llm_server", "--port", "0", "--model", "cli-model"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()  # "" if the process died
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        models = httpx.get(f"{base_url}/models").json()
        assert models["data"][0]["id"] == "cli-model"
        reply = httpx.post(
            f"{base_url}/chat/completions",
            json={"model": "cli-model", "messages": [{"role": "user", "content": "Hi there."}]},
        ).json()
        assert reply["choices"][0]["message"]["content"] == "Summary: Hi there."
    finally:
        process.terminate()
        returncode = process.wait(timeout=10)
    assert returncode == 0  # SIGTERM stops the server cleanly
