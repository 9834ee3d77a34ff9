"""A standard-library client for arew's environment server (cmd/envserver).

client            ArewEnvClient: one method per endpoint, errors as ArewEnvError
advantages        AREW's correction A-hat = A + lambda * u from per-step critiques
                  (arew_correction for a batch; the Go kernel's four modes)
episode           play_episode: one episode with any text generator (custom rollouts)
verl_interaction  ArewInteraction: verl's multi-turn interaction interface over
                  the server (verl v0.7.0), and the turn-score packing it uses
verl_trainer      verl's reward function and the advantage patch (verl v0.7.0)

docs/envserver.md in the repository is the guide.
"""

from .client import ArewEnvClient, ArewEnvError
from .advantages import arew_correction, corrected_advantages, margin_weights, step_of_token
from .episode import play_episode

__version__ = "0.1.0"

__all__ = ["ArewEnvClient", "ArewEnvError", "arew_correction", "corrected_advantages", "margin_weights",
           "step_of_token", "play_episode", "__version__"]
