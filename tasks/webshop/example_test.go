package webshop_test

import (
	"fmt"

	"arew/tasks/textworld"
	"arew/tasks/webshop"
)

// Example plays the expert on the game the package doc shows.
func Example() {
	w, err := webshop.New(webshop.DefaultConfig())
	if err != nil {
		panic(err)
	}
	e, err := w.NewEnv(textworld.Test, 2)
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
	// i need a watch that is digital and smart , in grey color , size large , price at most 20 dollars
	// you are on the search page .
	// search [ digital smart watch ] | results page 1 of 14 . p39 : watch digital smart , $ 9 . p54 : watch digital waterproof , $ 69 . p82 : watch smart steel , $ 7 .
	// click [ p39 ] | item p39 : digital waterproof smart watch , $ 9 . color : grey brown . size : large xlarge . you chose color none , size none .
	// click [ grey ] | item p39 : digital waterproof smart watch , $ 9 . color : grey brown . size : large xlarge . you chose color grey , size none .
	// click [ large ] | item p39 : digital waterproof smart watch , $ 9 . color : grey brown . size : large xlarge . you chose color grey , size large .
	// click [ buy now ] | thank you for shopping . your score is 100 percent .
	// reward 1
}
