package study

import "arew/rl/run"

// The study's files go through the run layer's writers (one mechanism
// for every run folder): whole files atomically, logs one JSON line per write.
var (
	writeFile   = run.WriteFile
	writeJSON   = run.WriteJSON
	createJSONL = run.CreateJSONL
)

type jsonl = run.JSONL
