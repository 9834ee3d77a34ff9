"""A standard-library client for arew's environment server (cmd/envserver).

client       ArewEnvClient: one method per endpoint, errors as ArewEnvError
verl         ArewInteraction: verl's multi-turn interaction interface
             (verl.interactions.base.BaseInteraction) over the server
advantages   the AREW correction A-hat = A + lambda * u from per-step critiques
episode      play_episode: one episode with any text generator (custom rollouts)
"""

from .client import ArewEnvClient, ArewEnvError
from .advantages import margin_weights, corrected_advantages
from .episode import play_episode

__all__ = ["ArewEnvClient", "ArewEnvError", "margin_weights", "corrected_advantages", "play_episode"]
