// Package serve puts arew's task simulators behind HTTP and JSON, so that a
// Python RL stack (verl, TRL, OpenRLHF, …) can train a language model on
// them: the training runs there, the environments run here. It imports only
// the standard library and package tasks; cmd/envserver is its command.
//
// # The protocol
//
// It follows the OpenEnv HTTP convention (GET /health, POST /reset, POST
// /step, GET /state, GET /metadata, GET /schema) with an episode id, so one
// server holds many concurrent episodes:
//
//	POST /reset {task, split, index | seed, config, episode_id?}
//	  → {episode_id, observation: {text, system, turn}, reward: 0, done: false, info}
//	POST /step  {episode_id, action: "the model's text"}
//	  → {episode_id, observation: {text, turn}, reward, done,
//	     info: {kind, critique, malformed, parse_error, truth_mass, move, tokens, measures (at the end)}}
//	GET  /state?episode_id=ID → {episode_id, step_count, steps, done, measures}
//	POST /close {episode_id}  GET /tasks → the settings, their default configs and system prompts
//
// Each episode is a tasks.TextEpisode: the text move is parsed by the
// task's text face into tokens and played on the token episode, so the
// critique, reward and measures are those of the same moves as tokens
// (TestPlayEqualsTokens plays every registered task through HTTP against a
// token twin). The reward is the outcome, at the end (0 before); NaN
// measures (a task without beliefs) are null.
//
// # Determinism
//
// An episode depends only on (task, config, split, index) and the moves:
// the same reset and moves give the same replies (TestPlayEqualsTokens
// replays each episode and compares every reply). Episode ids are random
// (crypto/rand) unless the client names them; nothing else is.
//
// # Bounds
//
// Request bodies are bounded (413), as is the text of a move (400); live
// episodes are bounded: a reset beyond the limit first drops episodes idle
// past the TTL, then the least recently used finished one, else answers
// 503. An episode idle past the TTL is gone (404). Bad JSON, unknown
// fields, unknown tasks and invalid configs are 400 with a message; a step
// after the end is 409; a wrong method 405 (TestErrors,
// TestCapacityAndExpiry). FuzzHandlers and FuzzStepText feed arbitrary
// bodies and moves; BenchmarkLoad measures episodes/s and step latency on
// loopback.
package serve
