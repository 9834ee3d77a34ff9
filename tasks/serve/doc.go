// Package serve puts arew's task simulators behind HTTP and JSON, so that a
// Python RL stack (verl, TRL, OpenRLHF, …) can train a language model on
// them: the training runs there, the environments run here. It imports only
// the standard library, package tasks and package textworld;
// cmd/envserver is its command.
//
// # The protocol
//
// It follows the OpenEnv HTTP convention (GET /health, POST /reset, POST
// /step, GET /state, GET /metadata, GET /schema) with an episode id, so one
// server holds many concurrent episodes:
//
//	POST /reset {task, split, index | seed, config, episode_id?}
//	  → {episode_id, token, observation: {text, system, turn}, reward: 0, done: false, info}
//	POST /step  {episode_id, token, action: "the model's text"}
//	  → {episode_id, observation: {text, turn}, reward, done,
//	     info: {kind, critique, malformed, parse_error, truth_mass, move, tokens, measures (at the end)}}
//	GET  /state?episode_id=ID&token=T → {episode_id, step_count, steps, done, measures}
//	POST /close {episode_id, token}  GET /tasks → the settings, their default configs and system prompts
//
// The same endpoints serve the ACT text environments registered with
// package textworld (alfworld, webshop, sciworld; GET /tasks lists them
// with protocol "commands"): an episode is a command per step, read from
// the model's text by textworld.ReadCommand, answered by the environment's
// observation, until the goal, the end or the step cap; the observation
// also lists the commands that apply (observation.admissible), the turn's
// kind is "command", a step's info says whether the command applied
// (CommandInfo: admissible, malformed, repeat) and /state records the
// commands (CommandState); the reward is the outcome, at the end. There are
// no critiques. TestCommandsPlay plays each environment's expert through
// HTTP against a twin; TestCommandErrors, TestWorldCostAtBounds,
// TestLiveCommandEpisodeAtBounds and FuzzStepCommand bound them as the
// tasks are bounded.
//
// The token is the episode's secret (128 bits from crypto/rand): every
// call on the episode must carry it, and a wrong one answers exactly as an
// unknown id (404), so ids, even client-chosen ones, reveal nothing.
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
// replays each episode and compares every reply). Tokens, and episode ids
// the client does not name, are random (crypto/rand); nothing else is.
//
// # Bounds
//
// Request bodies are bounded (413), as is the text of a move (400); JSON is
// read strictly: unknown fields, field names in another case, duplicate
// keys and trailing data are 400 (TestErrors, TestCheckJSON). Live
// episodes are bounded, overall and per remote IP (429: TestPerClientLimit);
// a reset beyond the overall limit first drops episodes idle past the TTL,
// then the least recently used finished one, else answers 503. Slots are
// reserved before anything is built, and expiry and eviction are O(1)
// amortised (the episodes sit in two lists in order of use), so a refusal
// is cheap. Each task's config validation bounds what one configured task
// holds (≤ 1 MiB) and what a reset costs (TestResetCostAtBounds,
// TestLiveEpisodeAtBounds, BenchmarkResetAtBounds); the configured tasks
// held, cached or pinned by live episodes, are bounded in bytes
// (Config.MaxTaskBytes, sizes estimated by sizeOf: TestTaskBudget). A new
// configuration is built once, outside the store's lock, at most
// Config.MaxBuilds at a time and two queued per client
// (TestBuildOutsideTheLock, TestClientBuilds); a request whose
// client leaves stops waiting, and a build nobody waits for is not run
// (TestClientLeaves). Paths that are not clean are a JSON 404, not a
// redirect. FuzzHandlers and FuzzStepText feed arbitrary bodies and moves;
// BenchmarkLoad measures episodes/s and step latency on loopback, and
// cmd/envserver's hostile-load test (build tag long) the server under
// hostile clients.
package serve
