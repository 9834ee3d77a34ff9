"""The client against a live server: a FloDial task and an ACT environment.

python3 -m unittest discover -s cmd/envserver/python/tests (standard library).
It starts the Go server on a free loopback port: the binary named by
$AREW_ENVSERVER, else one built with `go build ./cmd/envserver` from the
repository this file sits in; without either the tests are skipped.
"""

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from arew_env import ArewEnvClient, ArewEnvError, play_episode
from arew_env.verl_interaction import ArewInteraction, dataset_row, pack_turn_score, unpack_turn_scores
from arew_env.verl_trainer import compute_score, correct_batch_advantages

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))


def start_server(tmp):
    """Start the server on 127.0.0.1:0; returns (process, base_url) or None."""
    binary = os.environ.get("AREW_ENVSERVER")
    if not binary:
        if not shutil.which("go") or not os.path.isdir(os.path.join(REPO, "cmd", "envserver")):
            return None
        binary = os.path.join(tmp, "envserver")
        env = dict(os.environ, GOFLAGS="-buildvcs=false")
        subprocess.run(["go", "build", "-o", binary, "./cmd/envserver"], cwd=REPO, env=env, check=True)
    addr_file = os.path.join(tmp, "addr")
    log = os.path.join(tmp, "log")
    with open(log, "wb") as out:
        proc = subprocess.Popen([binary, "-addr", "127.0.0.1:0", "-addr-file", addr_file], stdout=out, stderr=out)
    deadline = time.monotonic() + 30
    while not (os.path.exists(addr_file) and os.path.getsize(addr_file) > 0):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            with open(log) as f:
                raise RuntimeError("envserver did not start: " + f.read())
        time.sleep(0.05)
    with open(addr_file) as f:
        return proc, "http://" + f.read().strip()


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        started = start_server(cls.tmp)
        if started is None:
            shutil.rmtree(cls.tmp)
            raise unittest.SkipTest("no server: set AREW_ENVSERVER or run inside the repository with go installed")
        cls.proc, cls.url = started
        cls.client = ArewEnvClient(cls.url)
        cls.client.wait_healthy()

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=15)
        shutil.rmtree(cls.tmp)

    def gone(self, episode_id, token):
        with self.assertRaises(ArewEnvError) as e:
            self.client.state(episode_id, token=token)
        self.assertEqual(e.exception.status, 404)

    def test_metadata_lists_both_kinds(self):
        tasks = {t["name"]: t for t in self.client.tasks()["tasks"]}
        self.assertEqual(tasks["flodial-easy"]["protocol"], "rounds")
        for name in ("alfworld", "webshop", "sciworld"):
            self.assertEqual(tasks[name]["protocol"], "commands")
            self.assertGreater(tasks[name]["max_steps"], 0)
        self.assertIn("alfworld", self.client.metadata()["tasks"])
        self.assertIn("command_step_info", self.client.schema())

    def test_flodial_reset_step_close(self):
        res = self.client.reset("flodial-easy", "test", index=3)
        eid, obs = res["episode_id"], res["observation"]
        self.assertEqual(obs["turn"], {"index": 0, "kind": "AS", "final": False, "max_words": 1})
        self.assertIn("Flowchart", obs["text"])
        step = self.client.step(eid, "Let me ask.\n<answer>q3</answer>")
        self.assertFalse(step["info"]["malformed"])
        self.assertIn(step["info"]["critique"], (-1, 0, 1))
        self.assertEqual(step["observation"]["turn"]["kind"], "BT")
        bad = self.client.step(eid, "I believe everything")
        self.assertTrue(bad["info"]["malformed"])
        self.assertEqual(bad["info"]["critique"], -1)
        self.assertEqual(self.client.state(eid)["step_count"], 2)
        token = res["token"]
        self.assertTrue(self.client.close(eid)["closed"])
        self.gone(eid, token)

    def test_alfworld_reset_step_close(self):
        res = self.client.reset("alfworld", "test-ood", index=3)
        eid, obs = res["episode_id"], res["observation"]
        self.assertEqual(obs["turn"]["kind"], "command")
        self.assertTrue(obs["text"].startswith("your task is to : put a hot plate in cabinet ."), obs["text"])
        self.assertIn("go to fridge 1", obs["admissible"])
        self.assertIn("Commands that apply now:", obs["text"])
        self.assertIn("How your reply is read", obs["system"])
        self.assertEqual(res["info"]["max_steps"], 50)
        step = self.client.step(eid, "The plate is cold, so the fridge.\n<answer>go to fridge 1</answer>")
        self.assertEqual(step["info"]["move"], "go to fridge 1")
        self.assertTrue(step["info"]["admissible"])
        self.assertTrue(step["observation"]["text"].startswith("you arrive at the fridge 1 ."))
        self.assertIn("open fridge 1", step["observation"]["admissible"])
        bad = self.client.step(eid, "open the fridge, please")
        self.assertTrue(bad["info"]["malformed"])
        self.assertIn("unknown word", bad["info"]["parse_error"])
        self.assertTrue(bad["observation"]["text"].startswith("nothing happens ."))
        state = self.client.state(eid)
        self.assertEqual([s["move"] for s in state["steps"]], ["go to fridge 1", ""])
        token = res["token"]
        self.client.close(eid)
        self.gone(eid, token)

    def test_bad_requests(self):
        for task, split, want in (("alfworld", "valid", "split must be"), ("webshop", "test-ood", "no test-ood split")):
            with self.assertRaises(ArewEnvError) as e:
                self.client.reset(task, split)
            self.assertEqual(e.exception.status, 400)
            self.assertIn(want, e.exception.message)
        with self.assertRaises(ArewEnvError) as e:
            self.client.reset("sciworld", config={"MaxSteps": 1000})
        self.assertEqual(e.exception.status, 400)

    def test_play_episode_on_commands(self):
        def first_admissible(messages):
            lines = messages[-1]["content"].splitlines()
            return "<answer>" + next(l[2:] for l in lines if l.startswith("- ")) + "</answer>"
        ep = play_episode(self.client, first_admissible, "sciworld", "train", index=1, config={"MaxSteps": 4})
        self.assertEqual(len(ep["turns"]), 4)
        self.assertEqual(ep["critiques"], [0, 0, 0, 0])
        self.assertEqual(ep["measures"]["steps"], 4)
        self.assertEqual(ep["measures"]["inadmissible"], 0)

    def test_verl_interaction_arew_scores(self):
        # verl v0.7.0's agent loop: start_interaction, then generate_response
        # after each assistant turn; it never calls finalize_interaction.
        async def rollout(interaction, row, policy):
            kwargs = row["extra_info"]["interaction_kwargs"]
            rid = await interaction.start_interaction("req-" + row["data_source"], **kwargs)
            messages, scores, done = list(row["prompt"]), [], False
            while not done:
                messages.append({"role": "assistant", "content": policy(messages)})
                done, text, score, _ = await interaction.generate_response(rid, messages, **kwargs)
                scores.append(score)
                messages.append({"role": "user", "content": text})
            return rid, scores

        interaction = ArewInteraction({"name": "arew", "base_url": self.url})
        row = dataset_row(self.client, "alfworld", "train", 2, config={"MaxSteps": 3})
        self.assertEqual(row["agent_name"], "tool_agent")
        self.assertEqual(row["extra_info"]["interaction_kwargs"]["task"], "alfworld")
        rid, scores = asyncio.run(rollout(interaction, row, lambda m: "look"))
        critiques, outcome, ended = unpack_turn_scores(scores)
        self.assertEqual((critiques, outcome, ended), ([0, 0, 0], 0.0, True))
        self.assertEqual(scores[-1], pack_turn_score(0, 0.0))
        ep = interaction._episodes[rid]
        self.gone(ep["id"], ep["token"])  # closed at the end, without finalize_interaction
        self.assertEqual(compute_score("arew/alfworld", "", "", {"turn_scores": scores}), 0.0)

        row = dataset_row(self.client, "flodial-easy", "test", 0)
        rid, scores = asyncio.run(rollout(interaction, row, lambda m: "q1" if "ask one" in m[-1]["content"] else "0 0 0 0 0 3"))
        critiques, outcome, ended = unpack_turn_scores(scores)
        self.assertTrue(ended)
        self.assertEqual(critiques, interaction.critiques(rid))
        self.assertEqual(outcome, interaction._episodes[rid]["reward"])
        self.assertEqual(len(critiques), 10)

        # The advantage patch's arithmetic on a verl-shaped batch of lists.
        class Batch:
            pass
        data = Batch()
        data.batch = {"advantages": [[1.0] * 20], "response_mask": [[1, 1, 0] * 6 + [1, 0]]}
        data.non_tensor_batch = {"turn_scores": [scores]}
        correct_batch_advantages(data, lam=2.0)
        row0 = data.batch["advantages"][0]
        self.assertEqual([row0[i] for i in (2, 5, 8)], [1.0, 1.0, 1.0])  # observations untouched
        if 1 in critiques and -1 in critiques:
            self.assertNotEqual(row0, [1.0] * 20)


if __name__ == "__main__":
    unittest.main()
