package study

import "arew/rl"

// The study's files go through rl's run-file writers (one mechanism for
// every run folder): whole files atomically, logs one JSON line per write.
var (
	writeFile   = rl.WriteFile
	writeJSON   = rl.WriteJSON
	createJSONL = rl.CreateJSONL
)

type jsonl = rl.JSONL
