package sciworld_test

import (
	"fmt"

	"arew/tasks/sciworld"
	"arew/tasks/textworld"
)

// Example plays the expert on the game the package doc shows.
func Example() {
	w, err := sciworld.New(sciworld.DefaultConfig())
	if err != nil {
		panic(err)
	}
	e, err := w.NewEnv(textworld.Test, 6)
	if err != nil {
		panic(err)
	}
	v := w.Vocab()
	fmt.Println(v.Decode(e.Goal()))
	fmt.Println(v.Decode(e.Observation()))
	for !e.Done() {
		a := e.Expert()
		obs, _ := e.Step(a)
		fmt.Println(v.Decode(a), "|", v.Decode(obs))
	}
	fmt.Println("reward", e.Reward())
	// Output:
	// your task is to melt the ice . first , focus on the ice .
	// this is the hallway . you see a bench , a closet that is closed .
	// go to kitchen | you move to the kitchen . this is the kitchen . you see a stove that is off , a freezer that is closed , a cupboard that is closed , a counter , a drawer that is closed .
	// open freezer | the freezer is now open . you see a bowl in the freezer , ice that is solid in the bowl .
	// focus on ice | you focus on the ice .
	// move bowl to stove | you move the bowl to the stove .
	// activate stove | the stove is now on .
	// wait | you wait . the ice melts .
	// reward 1
}
