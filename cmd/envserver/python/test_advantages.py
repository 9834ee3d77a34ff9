"""Unit tests of arew_env.advantages (python3 -m unittest, standard library)."""

import unittest

from arew_env.advantages import corrected_advantages, margin_weights, step_of_token


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


if __name__ == "__main__":
    unittest.main()
