package serve

import (
	"net/http"
)

// Version is the version of the HTTP protocol this package speaks.
const Version = "1"

func (s *Server) metadata(*http.Request) (int, any, error) {
	return http.StatusOK, map[string]any{
		"name":        "arew",
		"description": "arew's active-reasoning simulators (preference estimation, MediQ, FloDial, telecom) as text episodes: a system prompt, observations in words, moves as free-form text, a directional critique on every step and exact belief measures at the end; and the ACT text environments (alfworld, webshop, sciworld): a command per step, the commands that apply listed, the outcome as the reward.",
		"version":     Version,
		"tasks":       names(),
		"endpoints": []string{"GET /health", "GET /metadata", "GET /schema", "GET /tasks",
			"POST /reset", "POST /step", "GET /state?episode_id=ID&token=T", "POST /close"},
		"limits": map[string]any{"max_body_bytes": s.cfg.MaxBodyBytes, "max_action_bytes": s.cfg.MaxActionBytes,
			"max_episodes": s.cfg.MaxEpisodes, "max_episodes_per_client": s.cfg.MaxEpisodesPerClient,
			"max_task_bytes": s.cfg.MaxTaskBytes, "idle_ttl_seconds": s.cfg.IdleTTL.Seconds()},
	}, nil
}

// JSON Schemas (draft 2020-12) of the action, the observation and the state.
func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var (
	str       = map[string]any{"type": "string"}
	integer   = map[string]any{"type": "integer"}
	boolean   = map[string]any{"type": "boolean"}
	nullable  = map[string]any{"type": []string{"number", "null"}}
	strList   = map[string]any{"type": "array", "items": str}
	turnShape = map[string]any{"type": []string{"object", "null"}, "properties": map[string]any{
		"index": integer, "kind": map[string]any{"enum": []string{"AS", "BT", KindCommand}}, "final": boolean, "max_words": integer}}
	stepShape = obj(map[string]any{"turn": integer, "kind": str, "final": boolean,
		"critique": map[string]any{"enum": []int{-1, 0, 1}}, "malformed": boolean, "repeat": boolean,
		"truth_mass": nullable, "move": str})
)

func (s *Server) schema(*http.Request) (int, any, error) {
	measures := obj(map[string]any{"reward": map[string]any{"type": "number"}, "success": boolean,
		"as_proxy": nullable, "bt_proxy": nullable, "i_as": nullable, "c_bt": nullable, "evidence": nullable,
		"turns": integer, "malformed": integer, "repeats": integer})
	cmdMeasures := obj(map[string]any{"reward": map[string]any{"type": "number"}, "success": boolean, "steps": integer,
		"malformed": integer, "inadmissible": integer, "repeated_failures": integer})
	return http.StatusOK, map[string]any{
		"action": map[string]any{
			"description": "the model's reply for the current turn, as text (or {\"text\": ...}); see answer_rules in GET /tasks",
			"oneOf":       []any{str, obj(map[string]any{"text": str}, "text")},
		},
		"observation": obj(map[string]any{"text": str, "system": str, "turn": turnShape, "admissible": strList}, "text", "turn"),
		"state": obj(map[string]any{"episode_id": str, "step_count": integer, "task": str, "split": str,
			"index": integer, "done": boolean, "turn": turnShape,
			"steps": map[string]any{"type": "array", "items": stepShape}, "measures": measures},
			"episode_id", "step_count"),
		"step_info": obj(map[string]any{"turn": integer, "kind": str, "final": boolean,
			"critique": map[string]any{"enum": []int{-1, 0, 1}}, "malformed": boolean, "parse_error": str,
			"repeat": boolean, "truth_mass": nullable, "move": str,
			"tokens": map[string]any{"type": "array", "items": integer}, "measures": measures}),
		// The text environments (protocol "commands" in GET /tasks).
		"command_state": obj(map[string]any{"episode_id": str, "step_count": integer, "task": str, "split": str,
			"index": integer, "done": boolean, "turn": turnShape,
			"steps": map[string]any{"type": "array", "items": obj(map[string]any{"turn": integer, "kind": str,
				"move": str, "admissible": boolean, "malformed": boolean, "repeat": boolean})},
			"measures": cmdMeasures}, "episode_id", "step_count"),
		"command_step_info": obj(map[string]any{"turn": integer, "kind": map[string]any{"const": KindCommand},
			"move": str, "admissible": boolean, "malformed": boolean, "parse_error": str, "repeat": boolean,
			"tokens": map[string]any{"type": "array", "items": integer}, "measures": cmdMeasures}),
	}, nil
}
