"""ArewEnvClient: arew's environment server over HTTP, standard library only.

Every method is one request; a reply with a status other than 200 raises
ArewEnvError with the status and the server's message. Calls are blocking
and thread-safe (each opens its own connection), so an asyncio caller can
run them with asyncio.to_thread.
"""

import json
import time
import urllib.error
import urllib.parse
import urllib.request


class ArewEnvError(Exception):
    """A request the server refused: status is the HTTP status."""

    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class ArewEnvClient:
    def __init__(self, base_url="http://127.0.0.1:8080", timeout=30.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                message = json.loads(raw).get("error", raw)
            except ValueError:
                message = raw
            raise ArewEnvError(e.code, message) from None

    # --- the OpenEnv endpoints -------------------------------------------

    def health(self):
        return self._request("GET", "/health")

    def metadata(self):
        return self._request("GET", "/metadata")

    def schema(self):
        return self._request("GET", "/schema")

    def reset(self, task, split="train", index=None, seed=None, config=None, episode_id=None):
        """Start an episode. Returns {episode_id, observation: {text, system,
        turn}, reward, done, info}. index (or OpenEnv's seed) picks the
        instance; the same reset always gives the same instance."""
        body = {"task": task, "split": split}
        for key, value in (("index", index), ("seed", seed), ("config", config), ("episode_id", episode_id)):
            if value is not None:
                body[key] = value
        return self._request("POST", "/reset", body)

    def step(self, episode_id, action):
        """Play the model's text for the current turn. Returns {observation,
        reward, done, info: {kind, critique, malformed, parse_error,
        truth_mass, move, tokens, measures (once done)}}."""
        return self._request("POST", "/step", {"episode_id": episode_id, "action": action})

    def state(self, episode_id):
        return self._request("GET", "/state?" + urllib.parse.urlencode({"episode_id": episode_id}))

    # --- arew's additions ------------------------------------------------

    def tasks(self):
        """The settings: name, default config, max_tokens, system prompt."""
        return self._request("GET", "/tasks")

    def close(self, episode_id):
        return self._request("POST", "/close", {"episode_id": episode_id})

    def wait_healthy(self, timeout=30.0):
        """Poll /health until the server answers (for scripts that start it)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.health()
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
