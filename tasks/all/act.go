package all

// The ACT text environments register with textworld (not tasks.New: they
// speak textworld.Env, one command per step), for servers (tasks/serve).
import (
	_ "arew/tasks/alfworld"
	_ "arew/tasks/sciworld"
	_ "arew/tasks/webshop"
)
