"""arew_env.advantages against hand-computed values and the Go kernel.

python3 -m unittest discover -s cmd/envserver/python/tests (standard library).
The Go values are kernels/testdata/margin_cases.json, which the Go test
TestMarginFixture checks against kernels.MarginCorrection; from outside a
checkout of the repository (no such file) those cases are skipped.
"""

import json
import os
import unittest

from arew_env.advantages import (MODES, arew_correction, corrected_advantages, margin_weights,
                                 step_of_token, token_margin)

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                       "kernels", "testdata", "margin_cases.json")


class MarginTest(unittest.TestCase):
    def test_weights(self):
        self.assertEqual(margin_weights([1, -1, 0, 1]), [0.5, -1.0, 0.0, 0.5])
        self.assertEqual(margin_weights([1, 1, 0]), [0.0, 0.0, 0.0])  # one-sided: no correction
        self.assertEqual(margin_weights([]), [])
        self.assertAlmostEqual(sum(margin_weights([1, -1, -1, 1, 1])), 0.0)

    def test_corrected(self):
        mask = [1, 1, 0, 0, 1, 0, 1, 1]
        steps = step_of_token(mask)
        self.assertEqual(steps, [0, 0, -1, -1, 1, -1, 2, 2])
        adv = corrected_advantages([1.0] * 8, steps, [1, -1, 0], lam=0.5)
        self.assertEqual(adv, [1.5, 1.5, 1.0, 1.0, 0.5, 1.0, 1.0, 1.0])

    def test_modes_by_hand(self):
        # kernels' handMargin: steps a (2 tokens, +1), b (3 tokens, -1), c (2 tokens, +1).
        steps = [0, 0, -1, 1, 1, 1, -1, 2, 2]
        crit = [1, -1, 1]
        want = {
            "step": [0.5, 0.5, 0, -1, -1, -1, 0, 0.5, 0.5],
            "step_spread": [0.25, 0.25, 0, -1 / 3, -1 / 3, -1 / 3, 0, 0.25, 0.25],
            "minority_fixed": [0.75, 0.75, 0, -1, -1, -1, 0, 0.75, 0.75],
            "abs_sum": [0.125, 0.125, 0, -1 / 6, -1 / 6, -1 / 6, 0, 0.125, 0.125],
        }
        for mode in MODES:
            for got, w in zip(token_margin(steps, crit, mode), want[mode]):
                self.assertAlmostEqual(got, w, places=12, msg=mode)
        with self.assertRaises(ValueError):
            token_margin(steps, crit, "nope")

    def test_short_rows(self):
        # A row truncated after its first turn: the second critique has no tokens.
        self.assertEqual(arew_correction([[0.0, 0.0]], [[1, 1]], [[1, -1]], 1.0), [[0.0, 0.0]])
        with self.assertRaises(ValueError):
            arew_correction([[0.0]], [[1], [1]], [[1]], 1.0)

    @unittest.skipUnless(os.path.exists(FIXTURE), "no Go fixture outside a checkout of the repository")
    def test_matches_go_kernel(self):
        with open(FIXTURE) as f:
            cases = json.load(f)
        self.assertGreaterEqual(len(cases), 16)
        seen = set()
        for i, c in enumerate(cases):
            seen.add(c["mode"])
            got = arew_correction(c["advantages"], c["response_mask"], c["critiques"], c["lambda"], c["mode"])
            for r, (row, want) in enumerate(zip(got, c["expected"])):
                for t, (g, w) in enumerate(zip(row, want)):
                    # Go rounds A-hat to float32 once; 1e-6 relative covers it.
                    self.assertLessEqual(abs(g - w), 1e-6 * max(1.0, abs(w)),
                                         f"case {i} ({c['mode']}, lambda {c['lambda']}) row {r} token {t}: {g} vs Go {w}")
        self.assertEqual(seen, set(MODES))


if __name__ == "__main__":
    unittest.main()
