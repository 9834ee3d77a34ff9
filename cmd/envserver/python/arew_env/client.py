"""ArewEnvClient: arew's environment server over HTTP, standard library only.

Every method is one request; a reply with a status other than 200 raises
ArewEnvError with the status and the server's message. Calls are blocking
and thread-safe (each opens its own connection), so an asyncio caller can
run them with asyncio.to_thread.

Each episode has a secret token, returned by reset, that step, state and
close must carry; the client remembers the token of every episode it
started (until it closes it), so step(episode_id, text) works as before.
Pass token= to act on an episode another client object started.
"""

import json
import threading
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
        self._tokens = {}  # episode_id -> token, for the episodes this client started
        self._lock = threading.Lock()

    def token(self, episode_id):
        """The token of an episode this client started and has not closed."""
        with self._lock:
            return self._tokens.get(episode_id, "")

    def _token(self, episode_id, token):
        return token if token is not None else self.token(episode_id)

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
        """Start an episode. Returns {episode_id, token, observation: {text,
        system, turn}, reward, done, info}. index (or OpenEnv's seed) picks
        the instance; the same reset always gives the same instance."""
        body = {"task": task, "split": split}
        for key, value in (("index", index), ("seed", seed), ("config", config), ("episode_id", episode_id)):
            if value is not None:
                body[key] = value
        res = self._request("POST", "/reset", body)
        with self._lock:
            self._tokens[res["episode_id"]] = res["token"]
        return res

    def step(self, episode_id, action, token=None):
        """Play the model's text for the current turn. Returns {observation,
        reward, done, info: {kind, critique, malformed, parse_error,
        truth_mass, move, tokens, measures (once done)}}."""
        return self._request("POST", "/step", {"episode_id": episode_id, "token": self._token(episode_id, token),
                                               "action": action})

    def state(self, episode_id, token=None):
        query = {"episode_id": episode_id, "token": self._token(episode_id, token)}
        return self._request("GET", "/state?" + urllib.parse.urlencode(query))

    # --- arew's additions ------------------------------------------------

    def tasks(self):
        """The settings: name, default config, max_tokens, system prompt."""
        return self._request("GET", "/tasks")

    def close(self, episode_id, token=None):
        """Release an episode; the client forgets its token (also when the
        server no longer knows it)."""
        token = self._token(episode_id, token)
        try:
            return self._request("POST", "/close", {"episode_id": episode_id, "token": token})
        finally:
            with self._lock:
                if self._tokens.get(episode_id) == token:
                    del self._tokens[episode_id]

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
